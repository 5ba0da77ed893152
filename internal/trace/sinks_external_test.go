package trace_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/podwatch/podwatch/internal/trace"
	"github.com/podwatch/podwatch/internal/trace/page"
	"github.com/podwatch/podwatch/internal/trace/text"
	"github.com/podwatch/podwatch/internal/trace/tracetest"
)

// TestNoCredentials sends a request with every kind of credential a header
// or a query can carry through the Transport, and checks that no sink
// writes any of them, while each header still shows it was sent.
func TestNoCredentials(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "session", Value: "c00kie-from-server"})
		io.WriteString(w, "{}")
	}))
	defer srv.Close()
	var txt, js, html bytes.Buffer
	tr := trace.New(trace.Options{Sinks: []trace.Sink{text.New(&txt, text.Options{}), trace.JSON(&js), page.New(&html, page.Run{})}})
	req, _ := http.NewRequest("GET", srv.URL+"/api/v1/pods?access_token=qu3ry-t0ken&limit=1", nil)
	req.Header.Set("Authorization", "Bearer b3arer-t0ken")
	req.Header.Set("Proxy-Authorization", "Basic cHJveHk6c2VjcmV0")
	req.Header.Set("Cookie", "session=c00kie-to-server")
	resp, err := tracetest.Transport(trace.NewInstrument[*tracetest.Pod](tr).Configure).RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	secrets := []string{"b3arer-t0ken", "cHJveHk6c2VjcmV0", "c00kie-to-server", "c00kie-from-server", "qu3ry-t0ken"}
	for name, out := range map[string]string{"text": txt.String(), "json": js.String(), "html": html.String()} {
		for _, s := range secrets {
			if strings.Contains(out, s) {
				t.Errorf("the %s trace holds %q:\n%s", name, s, out)
			}
		}
	}
	for _, want := range []string{"Authorization: Bearer <masked>", "access_token=<masked>"} {
		if !strings.Contains(txt.String(), want) {
			t.Errorf("the text trace does not show %q:\n%s", want, txt.String())
		}
	}
}
