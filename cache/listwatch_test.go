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
