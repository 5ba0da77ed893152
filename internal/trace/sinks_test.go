package trace

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"
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
	var text, js, page bytes.Buffer
	tr := New(Options{Sinks: []Sink{Text(&text, false), JSON(&js), HTML(&page)}})
	req, _ := http.NewRequest("GET", srv.URL+"/api/v1/pods?access_token=qu3ry-t0ken&limit=1", nil)
	req.Header.Set("Authorization", "Bearer b3arer-t0ken")
	req.Header.Set("Proxy-Authorization", "Basic cHJveHk6c2VjcmV0")
	req.Header.Set("Cookie", "session=c00kie-to-server")
	resp, err := tr.transport(http.DefaultTransport).RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	secrets := []string{"b3arer-t0ken", "cHJveHk6c2VjcmV0", "c00kie-to-server", "c00kie-from-server", "qu3ry-t0ken"}
	for name, out := range map[string]string{"text": text.String(), "json": js.String(), "html": page.String()} {
		for _, s := range secrets {
			if strings.Contains(out, s) {
				t.Errorf("the %s trace holds %q:\n%s", name, s, out)
			}
		}
	}
	for _, want := range []string{"Authorization: Bearer <masked>", "access_token=<masked>"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("the text trace does not show %q:\n%s", want, text.String())
		}
	}
}

// TestHTMLEscapesTheServer gives the page names a hostile server could
// send: they must stay text, never become markup.
func TestHTMLEscapesTheServer(t *testing.T) {
	var page bytes.Buffer
	tr := New(Options{Sinks: []Sink{HTML(&page)}})
	tr.Begin("https://x", `</title><script>alert(1)</script>`)
	tr.mu.Lock()
	tr.emitLocked(Step{Kind: KindEvent, Req: 1, Event: &Event{Type: `"><script>alert(2)</script>`, Name: "</title><img src=x>"}})
	tr.mu.Unlock()
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(&page)
	if err != nil {
		t.Fatal(err)
	}
	// The page's own scripts are three: the error catcher, the model and
	// the timeline's; none holds the server's script.
	scripts := 0
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && n.Data == "img" {
			t.Fatalf("the server's text became an <img> element")
		}
		if n.Type == html.ElementNode && n.Data == "script" {
			scripts++
			if n.FirstChild != nil && strings.Contains(n.FirstChild.Data, "<script>alert") {
				t.Fatalf("the server's script reached a script element unescaped")
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	if scripts != 3 {
		t.Fatalf("the page has %d script elements, want its own 3", scripts)
	}
}

// TestTextEscapesControls checks that a server's text cannot drive a
// terminal: escapes and other controls are shown, not sent.
func TestTextEscapesControls(t *testing.T) {
	var out bytes.Buffer
	s := Text(&out, false)
	if err := s.Step(Step{Kind: KindEvent, Req: 1, Event: &Event{Type: "ADDED", Namespace: "ns", Name: "a\x1b[2Jb\rc"}}); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	if strings.ContainsAny(got[:len(got)-1], "\x1b\r") {
		t.Fatalf("control characters reached the output: %q", got)
	}
	if !strings.Contains(got, `a\u001b[2Jb\u000dc`) {
		t.Fatalf("got %q, want the controls escaped", got)
	}
}

type failingSink struct{ steps int }

func (f *failingSink) Step(Step) error { f.steps++; return errors.New("disk full") }
func (f *failingSink) Close() error    { return nil }

// TestFailingSink checks that a sink that fails gets nothing more, the
// others go on, and the failure is returned.
func TestFailingSink(t *testing.T) {
	bad := &failingSink{}
	var good bytes.Buffer
	tr := New(Options{Sinks: []Sink{bad, JSON(&good)}, Clock: func() time.Time { return time.Time{} }})
	tr.Begin("https://x", "pods")
	tr.Begin("https://x", "pods")
	err := tr.Close()
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("Close: got %v, want the sink's failure", err)
	}
	if bad.steps != 1 {
		t.Fatalf("the failed sink was given %d steps, want 1", bad.steps)
	}
	if n := strings.Count(good.String(), "\n"); n != 3 {
		t.Fatalf("the good sink got %d steps, want 3:\n%s", n, good.String())
	}
}
