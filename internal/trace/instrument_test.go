package trace

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/podwatch/podwatch/cache"
	"github.com/podwatch/podwatch/internal/resthook"
	"github.com/podwatch/podwatch/rest"
)

type headerLayer struct {
	next        http.RoundTripper
	name, value string
}

func (l headerLayer) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set(l.name, l.value)
	return l.next.RoundTrip(req)
}

// TestInstrumentConfigure checks where Configure puts the trace: beneath the
// layer already in WrapTransport (it sees what that adds, as sent) and above
// any layer wrapped in beneath it afterwards.
func TestInstrumentConfigure(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"kind":"PodList","metadata":{"resourceVersion":"1"},"items":[]}`))
	}))
	defer srv.Close()
	var out bytes.Buffer
	tr := New(Options{Sinks: []Sink{JSON(&out)}})
	cfg := rest.Config{Host: srv.URL, WrapTransport: func(rt http.RoundTripper) http.RoundTripper {
		return headerLayer{rt, "Impersonate-User", "from-above"}
	}}
	NewInstrument[*testPod](tr).Configure(&cfg)
	outer := cfg.WrapTransport // as the command adds its own layers beneath
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		return outer(headerLayer{rt, "Impersonate-Group", "from-below"})
	}
	c, err := rest.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Get().Resource("pods").Do(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	if !strings.Contains(got, `{"name":"Impersonate-User","value":"from-above"}`) {
		t.Errorf("the trace misses the header added above it:\n%s", got)
	}
	if strings.Contains(got, "from-below") {
		t.Errorf("the trace shows a header added beneath it:\n%s", got)
	}
	if !strings.Contains(got, `"kind":"response","req":1,`) {
		t.Errorf("the trace misses the response:\n%s", got)
	}
}

// TestZeroInstrument leaves everything as it is.
func TestZeroInstrument(t *testing.T) {
	var in Instrument[*testPod]
	cfg := rest.Config{Host: "https://h"}
	in.Configure(&cfg)
	if cfg.WrapTransport != nil || resthook.On(&cfg).WrapConn != nil {
		t.Errorf("the zero Instrument added hooks to the config")
	}
	s := cache.NewStore(cache.MetaNamespaceKey[*testPod])
	if got := in.WrapStore(s); got != s {
		t.Errorf("the zero Instrument wrapped the store")
	}
	in.Observe(cache.Step{Kind: cache.StepList})
	in.Pushed(nil, "1")
	if NewInstrument[*testPod](nil) != in {
		t.Errorf("NewInstrument(nil) is not the zero Instrument")
	}
}
