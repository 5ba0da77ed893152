package session

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/podwatch/podwatch/cache"
	"github.com/podwatch/podwatch/rest"
	"github.com/podwatch/podwatch/watch"
)

// TestGiveUp pins which failures before the first sync end the command:
// only what no retry can cure without a configuration change (a
// certificate that fails verification, a missing file); every answer of a
// server and every network failure is retried, as a kubelet does.
func TestGiveUp(t *testing.T) {
	giveUp := (&session{flags: &Flags{}}).reflectorOptions().GiveUp
	for _, code := range []int{400, 401, 403, 404, 408, 410, 429, 500, 502, 503} {
		err := rest.NewStatusError("GET x", code, nil, nil)
		if giveUp(&cache.PhaseError{Phase: cache.PhaseList, Name: "pods", Err: err}) {
			t.Errorf("giveUp(%d) = true, want a retry", code)
		}
	}
	for _, err := range []error{http.ErrServerClosed, &watch.FrameTooLargeError{Limit: 16 << 20}, &net.DNSError{Err: "no such host", Name: "x", IsNotFound: true}} {
		if giveUp(err) {
			t.Errorf("giveUp(%v) = true, want a retry", err)
		}
	}
	for _, err := range []error{
		fmt.Errorf("GET x: %w", &tls.CertificateVerificationError{Err: x509.UnknownAuthorityError{}}),
		fmt.Errorf("GET x: %w", x509.HostnameError{Certificate: &x509.Certificate{}, Host: "h"}),
		fmt.Errorf("GET x: bearer token file: %w", &fs.PathError{Op: "stat", Path: "/t", Err: fs.ErrNotExist}),
	} {
		if !giveUp(err) {
			t.Errorf("giveUp(%v) = false, want the command to end", err)
		}
		if re := withRemedy(err); !strings.Contains(re.Error(), err.Error()+"; ") {
			t.Errorf("withRemedy(%v) = %q, want the failure then what to fix", err, re)
		}
	}
}
