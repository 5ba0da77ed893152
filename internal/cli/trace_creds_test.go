package cli

import (
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/podwatch/podwatch/internal/cli/clitest"
)

// TestTraceNoCredentials watches over HTTP/2 with a bearer token and a
// client certificate, with every trace output on (text on stderr, JSON in a
// file, the HTML page), and checks that none of them holds the token or the
// key, while the Authorization header is traced, masked, and the HTTP/2
// frames that carried it are there.
func TestTraceNoCredentials(t *testing.T) {
	clitest.Isolate(t)
	api := startFakeAPI(t)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(api.serve))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.EnableHTTP2 = true
	srv.StartTLS() // the same certificate as api's: api.caFile trusts it
	defer srv.Close()
	dir := t.TempDir()
	cert, key, keyPEM := clitest.ClientPair(t, dir)
	secrets := append(clitest.SecretsOf(keyPEM), clitest.Token)
	conn := []string{"--server", srv.URL, "--certificate-authority", api.caFile, "--token", clitest.Token,
		"--client-certificate", cert, "--client-key", key, "--node", node1, "--max-events", node1Count}

	page := filepath.Join(dir, "trace.html")
	text := mustRun(t, append([]string{"watch", "--trace", "--trace-html", page}, conn...)...)
	jsonFile := filepath.Join(dir, "trace.json")
	js := mustRun(t, append([]string{"watch", "--trace-file", jsonFile, "--trace-format", "json", "--watch-list=false"}, conn...)...)
	outputs := map[string]string{"text stdout": text.stdout, "text stderr": text.stderr, "json stdout": js.stdout, "json stderr": js.stderr}
	for _, f := range []string{page, jsonFile} {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatalf("read %s: %v", f, err)
		}
		outputs[filepath.Base(f)] = string(data)
	}
	for what, out := range outputs {
		for _, s := range secrets {
			if strings.Contains(out, s) {
				t.Fatalf("%s holds a credential (%.12s...):\n%s", what, s, out)
			}
		}
	}
	for what, want := range map[string]string{
		"text stderr": "Authorization: Bearer <masked>",
		"trace.json":  `{"name":"Authorization","value":"Bearer <masked>"}`,
		"trace.html":  "Authorization: Bearer &lt;masked&gt;",
	} {
		if !strings.Contains(outputs[what], want) {
			t.Errorf("%s does not show the masked Authorization header %q", what, want)
		}
	}
	steps := parseJSONTrace(t, outputs["trace.json"])
	kinds := map[string]int{}
	for _, s := range steps {
		kinds[s.Kind]++
	}
	if kinds["conn"] == 0 || kinds["frame"] == 0 {
		t.Fatalf("no HTTP/2 connection or frame traced over HTTP/2: %v", kinds)
	}
	for _, want := range []string{`"dir":"sent","type":"HEADERS"`, `"dir":"recv","type":"DATA"`, `"proto":"HTTP/2.0"`} {
		if !strings.Contains(outputs["trace.json"], want) {
			t.Errorf("the JSON trace has no %s", want)
		}
	}
	if !strings.Contains(text.stderr, "h2 c1 recv    DATA stream=") {
		t.Errorf("the text trace shows no DATA frame:\n%s", text.stderr)
	}
}
