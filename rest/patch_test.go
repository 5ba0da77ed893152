package rest

import (
	"context"
	"io"
	"net/http"
	"testing"
)

// A merge patch goes as PATCH with its own Content-Type (the apiserver
// answers a PATCH labelled application/json with 415), to the object's path,
// body as given; a plain body keeps application/json.
func TestMergePatch(t *testing.T) {
	type seen struct{ method, path, ct, body string }
	got := make(chan seen, 1)
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- seen{r.Method, r.URL.Path, r.Header.Get("Content-Type"), string(b)}
		io.WriteString(w, "{}")
	})
	c := mustClient(t, Config{Host: srv.URL})
	patch := `{"metadata":{"annotations":{"a":"1"}}}`
	if _, err := c.Get().Namespace("ns").Resource("pods").Name("p").MergePatch([]byte(patch)).Do(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := seen{http.MethodPatch, "/api/v1/namespaces/ns/pods/p", ContentTypeMergePatch, patch}
	if s := <-got; s != want {
		t.Fatalf("sent %+v, want %+v", s, want)
	}
	if _, err := c.Get().Verb(http.MethodPost).Resource("pods").Body([]byte("{}")).Do(context.Background()); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s.ct != "application/json" {
		t.Fatalf("a plain body went as %q, want application/json", s.ct)
	}
}
