package cache

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/podwatch/podwatch/rest"
	"github.com/podwatch/podwatch/rest/api"
)

// TestListWatchErrorsNameTheRequest: a failure, whether the server's answer
// or a body that breaks off, names the request once, and a reflector adds
// the phase and the collection in front.
func TestListWatchErrorsNameTheRequest(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("watch") == "true" {
			w.WriteHeader(http.StatusForbidden)
			fmt.Fprint(w, `{"kind":"Status","code":403,"reason":"Forbidden","message":"no"}`)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"kind":"PodList","metadata":{"resourceVersion":"1"},"items":[{"metadata":`)
	}))
	defer srv.Close()
	c, err := rest.NewClient(rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	lw := NewListWatchFromClient(c, "pods", "", "", api.Codec)
	where := srv.URL + "/api/v1/pods"

	_, err = lw.List(context.Background(), ListOptions{})
	if err == nil || !strings.HasPrefix(err.Error(), "GET "+where) || strings.Count(err.Error(), where) != 1 {
		t.Errorf("List: %v, want an error that names GET %s once, first", err, where)
	}
	_, err = lw.Watch(context.Background(), WatchOptions{})
	if !rest.IsForbidden(err) || !strings.HasPrefix(err.Error(), "GET "+where) || strings.Count(err.Error(), where) != 1 {
		t.Errorf("Watch: %v, want the 403 naming GET %s once, first", err, where)
	}

	pe := &PhaseError{Phase: PhaseWatch, Name: "pods", Err: err}
	if got := pe.Error(); !strings.HasPrefix(got, "watch pods: GET "+where) {
		t.Errorf("PhaseError: %q, want it to start with the phase, the collection and the request", got)
	}
	var back *PhaseError
	if !errors.As(fmt.Errorf("wrapped: %w", pe), &back) || back.Phase != PhaseWatch {
		t.Errorf("errors.As does not find the PhaseError and its phase")
	}
}

// TestWatchStreamErrorsNameTheRequest: what fails inside a watch's body, an
// ERROR event or a body cut inside an event, names the request as a refused
// request does, "GET " and its URL, so that a warning names every request
// one way.
func TestWatchStreamErrorsNameTheRequest(t *testing.T) {
	bodies := map[string]string{
		"error event": `{"type":"ERROR","object":{"kind":"Status","code":410,"reason":"Expired","message":"too old"}}` + "\n",
		"cut event":   `{"type":"ADDED","object":{"metadata":{"name":"a"`,
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, bodies[r.URL.Query().Get("labelSelector")])
	}))
	defer srv.Close()
	c, err := rest.NewClient(rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	for name := range bodies {
		t.Run(name, func(t *testing.T) {
			lw := NewListWatchFromClient(c, "pods", "", "", api.Codec)
			lw.LabelSelector = name
			w, err := lw.Watch(context.Background(), WatchOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Stop()
			ev, ok := <-w.ResultChan()
			if !ok || ev.Err == nil {
				t.Fatalf("got %+v (open %t), want an ERROR event", ev, ok)
			}
			want := "GET " + srv.URL + "/api/v1/pods?"
			if got := ev.Err.Error(); !strings.HasPrefix(got, want) || strings.Count(got, srv.URL) != 1 {
				t.Errorf("got %q, want it to name the request once, first, as %q...", got, want)
			}
		})
	}
}
