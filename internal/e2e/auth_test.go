package e2e

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/podwatch/podwatch/cache"
	"github.com/podwatch/podwatch/internal/cluster"
	"github.com/podwatch/podwatch/rest"
	"github.com/podwatch/podwatch/rest/api"
	"github.com/podwatch/podwatch/watch"
)

// testHTTP2 checks that a watch over TLS is served over HTTP/2, as the
// response podwatch's transport got says.
func testHTTP2(t *testing.T, ctx context.Context, c *cluster.Cluster, m clientMode) {
	ns := m.ns("http2")
	if err := c.EnsureNamespace(ctx, ns); err != nil {
		t.Fatalf("EnsureNamespace: %v", err)
	}
	if _, err := c.CreatePod(ctx, ns, "pod", node, nil); err != nil {
		t.Fatalf("CreatePod: %v", err)
	}
	trips := &tripLog{}
	lw := nodeListWatch(m.newClient(t, c, c.NodeToken, trips))
	// From no resourceVersion the server starts with an ADDED event for
	// every pod it has.
	w, err := lw.Watch(ctx, cache.WatchOptions{TimeoutSeconds: 60})
	if err != nil {
		t.Fatalf("watch: %v", err)
	}
	defer w.Stop()
	waitEvent(t, ctx, w, func(ev watch.Event[*api.Pod]) bool {
		return ev.Type == watch.Added && ev.Object.Metadata.Namespace == ns
	}, "ADDED "+ns+"/pod")

	got := trips.all()
	if len(got) != 1 || !got[0].isWatch() {
		t.Fatalf("requests: got %s, want one watch", describeTrips(got))
	}
	if got[0].Proto != "HTTP/2.0" {
		t.Fatalf("watch protocol: got %s, want HTTP/2.0", got[0].Proto)
	}
}

// waitEvent reads w until an event matching want arrives, failing t if the
// watch ends or fails first or nothing matches within wait.
func waitEvent(t *testing.T, ctx context.Context, w watch.Interface[*api.Pod], want func(watch.Event[*api.Pod]) bool, what string) watch.Event[*api.Pod] {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	for {
		select {
		case <-ctx.Done():
			t.Fatalf("no %s event within %s", what, wait)
		case ev, ok := <-w.ResultChan():
			if !ok {
				t.Fatalf("watch closed before the %s event", what)
			}
			if ev.Type == watch.Error {
				t.Fatalf("watch failed before the %s event: %v", what, ev.Err)
			}
			if want(ev) {
				return ev
			}
		}
	}
}

// testTokens checks who may watch: the node's token can, a token without
// the RBAC grant gets a 403 naming the resource, a wrong one a 401, and no
// error text holds the token.
func testTokens(t *testing.T, ctx context.Context, c *cluster.Cluster) {
	const ns = "tokens"
	if err := c.EnsureNamespace(ctx, ns); err != nil {
		t.Fatalf("EnsureNamespace: %v", err)
	}

	t.Run("node token lists and watches", func(t *testing.T) {
		lw := nodeListWatch(newClient(t, c, c.NodeToken, nil))
		list, err := lw.List(ctx, cache.ListOptions{})
		if err != nil {
			t.Fatalf("list: %v", err)
		}
		w, err := lw.Watch(ctx, cache.WatchOptions{ResourceVersion: list.Metadata.ResourceVersion, TimeoutSeconds: 60})
		if err != nil {
			t.Fatalf("watch: %v", err)
		}
		defer w.Stop()
		if _, err := c.CreatePod(ctx, ns, "seen", node, nil); err != nil {
			t.Fatalf("CreatePod: %v", err)
		}
		waitEvent(t, ctx, w, func(ev watch.Event[*api.Pod]) bool {
			return ev.Type == watch.Added && ev.Object.Metadata.Namespace == ns && ev.Object.Metadata.Name == "seen"
		}, "ADDED "+ns+"/seen")
	})

	tests := []struct {
		name   string
		token  string
		is     func(error) bool
		code   string
		phrase func(verb string) string // the server's message must say this
	}{
		{
			name: "no RBAC grant", token: c.NoRBACToken, is: rest.IsForbidden, code: "403",
			phrase: func(verb string) string { return `cannot ` + verb + ` resource "pods"` },
		},
		{
			name: "wrong token", token: "wrong-token-0123456789", is: rest.IsUnauthorized, code: "401",
			phrase: func(string) string { return "Unauthorized" },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lw := nodeListWatch(newClient(t, c, tt.token, nil))
			_, listErr := lw.List(ctx, cache.ListOptions{})
			w, watchErr := lw.Watch(ctx, cache.WatchOptions{TimeoutSeconds: 60})
			if watchErr == nil {
				w.Stop()
			}
			for _, call := range []struct {
				verb string
				err  error
			}{{"list", listErr}, {"watch", watchErr}} {
				checkRefusal(t, call.verb, call.err, tt.token, tt.is, tt.code, tt.phrase(call.verb))
			}

			// A reflector reports the refusal with each backoff and keeps
			// trying; the store never gets anything.
			_, pushes, steps := runReflector(t, ctx, lw, cache.ReflectorOptions{})
			var backoff cache.Step
			if !poll(ctx, func() bool {
				all := steps.all()
				i := slices.IndexFunc(all, func(s cache.Step) bool { return s.Kind == cache.StepBackoff })
				if i >= 0 {
					backoff = all[i]
				}
				return i >= 0
			}) {
				t.Fatalf("no backoff step within %s; steps:%s", wait, steps.summary())
			}
			checkRefusal(t, "list", backoff.Err, tt.token, tt.is, tt.code, tt.phrase("list"))
			var pe *cache.PhaseError
			if !errors.As(backoff.Err, &pe) || pe.Phase != cache.PhaseList {
				t.Errorf("backoff error %v: want a *cache.PhaseError of phase list", backoff.Err)
			}
			if n := len(pushes.all()); n != 0 {
				t.Errorf("pushes: got %d, want none", n)
			}
		})
	}
}

// checkRefusal checks one refused request's error: typed, matched by the
// predicate, and printing the code, the server's reason and where it
// happened, but never the token.
func checkRefusal(t *testing.T, verb string, err error, token string, is func(error) bool, code, phrase string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: got no error, want a %s", verb, code)
		return
	}
	t.Logf("%s error: %v", verb, err)
	se, ok := rest.AsStatusError(err)
	if !ok {
		t.Errorf("%s: error %T %v is not a *rest.StatusError", verb, err, err)
		return
	}
	if !is(err) {
		t.Errorf("%s: got status %d %s, want %s", verb, se.Status.Code, se.Status.Reason, code)
	}
	if !strings.Contains(se.Status.Message, phrase) {
		t.Errorf("%s: server message %q does not say %q", verb, se.Status.Message, phrase)
	}
	text := err.Error()
	for _, want := range []string{code, phrase, "/api/v1/"} {
		if !strings.Contains(text, want) {
			t.Errorf("%s: error %q does not say %q", verb, text, want)
		}
	}
	for _, secret := range []string{token, "Bearer"} {
		if strings.Contains(text, secret) {
			t.Errorf("%s: error %q holds %q", verb, text, secret)
		}
	}
}

// testCertRotation rotates the client certificate files under a running
// client, as a kubelet's certificate manager does: a watch open across the
// rotation keeps its connection and its identity, and once the client makes
// a new connection it presents the new certificate. The two certificates name
// users with different rights, so the server's answer tells which one it saw.
func testCertRotation(t *testing.T, ctx context.Context, c *cluster.Cluster, m clientMode) {
	ns := m.ns("cert-rotation")
	if err := c.EnsureNamespace(ctx, ns); err != nil {
		t.Fatalf("EnsureNamespace: %v", err)
	}
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "client.crt"), filepath.Join(dir, "client.key")
	writeClientCert(t, c, certFile, keyFile, cluster.NodeUser, nil)
	cfg := rest.Config{Host: c.URL, TLS: rest.TLSConfig{CAData: c.CAData, CertFile: certFile, KeyFile: keyFile}}
	m.configure(t, &cfg)
	client, err := rest.NewClient(cfg)
	if err != nil {
		t.Fatalf("rest.NewClient: %v", err)
	}
	defer client.CloseIdleConnections()
	listNamespaces := func() error {
		_, err := client.Get().AbsPath("/api/v1").Resource("namespaces").Do(ctx)
		return err
	}
	// The node's user may watch pods but not list namespaces.
	if err := listNamespaces(); !rest.IsForbidden(err) {
		t.Fatalf("list namespaces as %s: got %v, want 403", cluster.NodeUser, err)
	}

	lw := nodeListWatch(client)
	w, err := lw.Watch(ctx, cache.WatchOptions{TimeoutSeconds: 120})
	if err != nil {
		t.Fatalf("watch: %v", err)
	}
	defer w.Stop()
	created := func(name string) func(watch.Event[*api.Pod]) bool {
		return func(ev watch.Event[*api.Pod]) bool {
			return ev.Type == watch.Added && ev.Object.Metadata.Namespace == ns && ev.Object.Metadata.Name == name
		}
	}
	if _, err := c.CreatePod(ctx, ns, "before", node, nil); err != nil {
		t.Fatalf("CreatePod: %v", err)
	}
	waitEvent(t, ctx, w, created("before"), "ADDED "+ns+"/before")

	const rotated = "podwatch-rotated-admin"
	writeClientCert(t, c, certFile, keyFile, rotated, []string{"system:masters"})
	if _, err := c.CreatePod(ctx, ns, "after", node, nil); err != nil {
		t.Fatalf("CreatePod: %v", err)
	}
	waitEvent(t, ctx, w, created("after"), "ADDED "+ns+"/after (the watch open across the rotation)")
	w.Stop()

	// The stopped watch's connection becomes idle a moment after Stop;
	// until it is closed a request may still ride it, with the old identity.
	var last error
	if !poll(ctx, func() bool {
		client.CloseIdleConnections()
		last = listNamespaces()
		return last == nil
	}) {
		t.Fatalf("list namespaces after the rotation to %s: %v, want it allowed within %s", rotated, last, wait)
	}
}

// writeClientCert writes a new client certificate for user in groups, and
// its key, over certFile and keyFile: each through a rename, as a
// certificate manager writes them.
func writeClientCert(t *testing.T, c *cluster.Cluster, certFile, keyFile, user string, groups []string) {
	t.Helper()
	certPEM, keyPEM, err := c.ClientCertificate(user, groups, time.Now().Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct {
		path string
		data []byte
	}{{certFile, certPEM}, {keyFile, keyPEM}} {
		tmp := f.path + ".tmp"
		if err := os.WriteFile(tmp, f.data, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, f.path); err != nil {
			t.Fatal(err)
		}
	}
}
