package cli

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/podwatch/podwatch/internal/cborenc"
	"github.com/podwatch/podwatch/internal/cli/clitest"
	"github.com/podwatch/podwatch/rest/wire"
)

// TestVerboseCBOR runs a CBOR watch at -v 9 against a server answering in
// CBOR: the curl line shows the Accept header sent, and each body is a hex
// dump under a line naming the self-describe tag, never raw binary.
func TestVerboseCBOR(t *testing.T) {
	clitest.Isolate(t)
	pod := fmt.Sprintf(`{"kind":"Pod","apiVersion":"v1","metadata":{"name":"a","namespace":"default","uid":"u","resourceVersion":"5"},"spec":{"nodeName":%q,"containers":[{"name":"c","image":"i"}]},"status":{}}`, node1)
	list, err := cborenc.EncodeJSON([]byte(`{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"5"},"items":[` + pod + `]}`))
	if err != nil {
		t.Fatal(err)
	}
	event, err := cborenc.EncodeEvent("MODIFIED", []byte(strings.Replace(pod, `"5"`, `"6"`, 1)))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("watch") != "true" {
			w.Header().Set("Content-Type", wire.ContentTypeCBOR)
			w.Write(list)
			return
		}
		w.Header().Set("Content-Type", wire.ContentTypeCBORSeq)
		w.Write(event)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	r := mustRun(t, "watch", "--server", srv.URL, "--node", node1, "--content-type", "cbor", "--watch-list=false", "--max-events", "1", "-v", "9")
	for _, want := range []string{
		"curl -v -XGET -H 'Accept: " + wire.ContentTypeCBOR + "'",
		fmt.Sprintf("(%s, %d bytes shown in hex): a self-described CBOR item (tag 55799, d9 d9 f7)", wire.ContentTypeCBOR, len(list)),
		fmt.Sprintf("(%s, %d bytes shown in hex): a self-described CBOR item", wire.ContentTypeCBORSeq, len(event)),
		"    00000000  d9 d9 f7 ",
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("-v 9 does not show %q:\n%s", want, r.stderr)
		}
	}
	if strings.ContainsRune(r.stderr, 0) {
		t.Errorf("-v 9 printed raw binary:\n%q", r.stderr)
	}
}
