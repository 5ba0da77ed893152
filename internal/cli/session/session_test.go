package session

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/podwatch/podwatch/cache"
	"github.com/podwatch/podwatch/internal/fixture"
	"github.com/podwatch/podwatch/rest"
	"github.com/podwatch/podwatch/watch"
)

// scopeRefusal is the 400 a replay server whose recording holds node-a's
// pods gives a client asking for another node's.
func scopeRefusal() error {
	body := `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"not recorded","reason":"BadRequest",` +
		`"details":{"kind":"pods","causes":[{"reason":"` + fixture.CauseRecordedScope + `","message":"/api/v1/pods?fieldSelector=spec.nodeName%3Dnode-a","field":""}]},"code":400}`
	return rest.NewStatusError("GET http://h/api/v1/pods?fieldSelector=spec.nodeName%3Dvm", 400, nil, []byte(body))
}

// TestGiveUp pins which failures before the first sync end the command:
// what no retry can cure without a configuration change (a certificate
// that fails verification, a plain HTTP server asked in https, a missing
// file), a host DNS does not know, and a replay server's refusal of a scope
// its recording does not hold; every other answer of a server and every
// other network failure is retried, as a kubelet does.
func TestGiveUp(t *testing.T) {
	giveUp := (&session{flags: &Flags{}}).reflectorOptions().GiveUp
	for _, code := range []int{400, 401, 403, 404, 408, 410, 429, 500, 502, 503} {
		err := rest.NewStatusError("GET x", code, nil, nil)
		if giveUp(&cache.PhaseError{Phase: cache.PhaseList, Name: "pods", Err: err}) {
			t.Errorf("giveUp(%d) = true, want a retry", code)
		}
	}
	for _, err := range []error{http.ErrServerClosed, &watch.FrameTooLargeError{Limit: 16 << 20},
		&net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED},
		&net.DNSError{Err: "server misbehaving", Name: "x", IsTemporary: true}} {
		if giveUp(err) {
			t.Errorf("giveUp(%v) = true, want a retry", err)
		}
	}
	host, _ := url.Parse("https://h:6443")
	for _, tc := range []struct {
		err    error
		remedy string
	}{
		{fmt.Errorf("GET x: %w", &tls.CertificateVerificationError{Err: x509.UnknownAuthorityError{}}), "; the server's certificate was not accepted"},
		{fmt.Errorf("GET x: %w", x509.HostnameError{Certificate: &x509.Certificate{}, Host: "h"}), "--tls-server-name"},
		{fmt.Errorf("GET x: bearer token file: %w", &fs.PathError{Op: "stat", Path: "/t", Err: fs.ErrNotExist}), "; a file the configuration names"},
		{fmt.Errorf("GET x: %w", http.ErrSchemeMismatch), "; the server speaks plain HTTP, not HTTPS: use http://h:6443 ("},
		{fmt.Errorf("GET x: %w", &net.OpError{Op: "dial", Err: &net.DNSError{Err: "no such host", Name: "h", IsNotFound: true}}), "; DNS does not know the host h: "},
		{&cache.PhaseError{Phase: cache.PhaseList, Name: "pods", Err: scopeRefusal()},
			"the server's recording holds only the pods of node node-a, so it refused GET http://h/api/v1/pods?fieldSelector=spec.nodeName%3Dvm: use --node node-a"},
	} {
		if !giveUp(tc.err) {
			t.Errorf("giveUp(%v) = false, want the command to end", tc.err)
		}
		if got := withRemedy(tc.err, host).Error(); !strings.Contains(got, tc.remedy) {
			t.Errorf("withRemedy(%v) = %q, want it to say %q", tc.err, got, tc.remedy)
		}
	}
}

// TestRetriesTellOnce: a failure is told in full once, and each later
// attempt it fails only by its number and short cause, until a success
// starts over; a failure of another cause is told in full.
func TestRetriesTellOnce(t *testing.T) {
	var r retries
	refused := func(u string) error {
		return &cache.PhaseError{Phase: cache.PhaseList, Name: "pods", Err: &url.Error{Op: "Get", URL: u,
			Err: &net.OpError{Op: "dial", Net: "tcp", Err: &os.SyscallError{Syscall: "connect", Err: syscall.ECONNREFUSED}}}}
	}
	busy := rest.NewStatusError("GET http://h/api/v1/pods", 503, nil, nil)
	type told struct {
		step cache.Step
		want string
	}
	for i, tc := range []told{
		{cache.Step{Kind: cache.StepFallbackList, Err: refused("http://h/?timeoutSeconds=1")}, "watch-list"},
		{cache.Step{Kind: cache.StepBackoff, Wait: time.Second, Err: refused("http://h/?limit=500")}, "attempt 1 failed: connection refused; retrying in 1s"},
		{cache.Step{Kind: cache.StepFallbackList, Err: refused("http://h/?timeoutSeconds=2")}, ""},
		{cache.Step{Kind: cache.StepBackoff, Wait: 2 * time.Second, Err: refused("http://h/?limit=500")}, "attempt 2 failed: connection refused; retrying in 2s"},
		{cache.Step{Kind: cache.StepBackoff, Wait: 3 * time.Second, Err: busy}, "GET http://h/api/v1/pods: server answered 503: Service Unavailable; retrying in 3s"},
		{cache.Step{Kind: cache.StepBackoff, Wait: 4 * time.Second, Err: busy}, "attempt 4 failed: server answered 503; retrying in 4s"},
		{cache.Step{Kind: cache.StepReplace}, ""},
		{cache.Step{Kind: cache.StepBackoff, Wait: time.Second, Err: refused("http://h/?watch=true")}, "list pods: Get \"http://h/?watch=true\": dial tcp: connect: connection refused; retrying in 1s"},
	} {
		r.step(tc.step)
		var got string
		switch tc.step.Kind {
		case cache.StepFallbackList:
			got = r.fallback(tc.step.Err)
			if tc.want != "" && strings.HasSuffix(got, "; listing instead") {
				got = tc.want
			}
		case cache.StepBackoff:
			var again bool
			got, again = r.backoff(tc.step.Err, tc.step.Wait)
			if again != strings.HasPrefix(got, "attempt ") {
				t.Errorf("step %d: %q told as a repeat: %t", i, got, again)
			}
		}
		if got != tc.want {
			t.Errorf("step %d (%s): got %q, want %q", i, tc.step.Kind, got, tc.want)
		}
	}
}
