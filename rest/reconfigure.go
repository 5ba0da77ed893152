package rest

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io/fs"
	"net"
	"net/http"
	"os/exec"
)

// NeedsConfigChange reports a failure that no retry can cure without a change
// of configuration, whatever the server does meanwhile: the server's
// certificate failed verification (an unknown authority, a name that does
// not match, an expired or otherwise invalid certificate), the server
// answered an https request in plain HTTP (IsSchemeMismatch), or a file the
// configuration names (a token or certificate file, an exec plugin) is
// missing or unreadable, so the request was never sent.
//
// Everything else, a server's answer of any code included, may be cured by
// waiting: a host not yet in DNS (IsHostNotFound), a server not yet
// listening, a credential not yet bound to a role (401, 403), an overloaded
// or failing server, a proxy's error page, a stream cut or garbled on the
// way. A kubelet retries all of those, and so does a reflector whose GiveUp
// is NeedsConfigChange.
func NeedsConfigChange(err error) bool {
	return IsCertificateError(err) || IsSchemeMismatch(err) || isMissingFile(err)
}

// IsSchemeMismatch reports an https request that a server answered in plain
// HTTP: the host's scheme should be http. Go's http.Client says so with
// http.ErrSchemeMismatch; beneath it (a RoundTripper's own error, before the
// Client looks at it) the same failure is a TLS record header that reads
// "HTTP/".
func IsSchemeMismatch(err error) bool {
	var rh tls.RecordHeaderError
	return errors.Is(err, http.ErrSchemeMismatch) ||
		errors.As(err, &rh) && string(rh.RecordHeader[:]) == "HTTP/"
}

// IsHostNotFound reports a host name that DNS says does not exist. Unlike a
// resolver that cannot be reached or times out, this is DNS's answer, so a
// client that has never reached the host is most likely configured with the
// wrong name; one that reached it before may just be seeing DNS change, and
// may wait.
func IsHostNotFound(err error) bool {
	var dns *net.DNSError
	return errors.As(err, &dns) && dns.IsNotFound
}

// IsCertificateError reports that the server's certificate failed
// verification: signed by an authority the client does not trust, made for
// another name, expired or otherwise invalid.
func IsCertificateError(err error) bool {
	var (
		verify   *tls.CertificateVerificationError
		unknown  x509.UnknownAuthorityError
		hostname x509.HostnameError
		invalid  x509.CertificateInvalidError
		roots    x509.SystemRootsError
	)
	return errors.As(err, &verify) || errors.As(err, &unknown) || errors.As(err, &hostname) ||
		errors.As(err, &invalid) || errors.As(err, &roots)
}

// isMissingFile reports a file operation that failed (a token file, a
// certificate, an exec plugin's program): only files fail this way, never a
// network, so the request it was for was never sent.
func isMissingFile(err error) bool {
	var (
		path    *fs.PathError
		program *exec.Error
	)
	return errors.As(err, &path) || errors.As(err, &program)
}
