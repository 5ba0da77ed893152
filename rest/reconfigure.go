package rest

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io/fs"
	"os/exec"
)

// NeedsConfigChange reports a failure that no retry can cure without a change
// of configuration, whatever the server does meanwhile: the server's
// certificate failed verification (an unknown authority, a name that does
// not match, an expired or otherwise invalid certificate), or a file the
// configuration names (a token or certificate file, an exec plugin) is
// missing or unreadable, so the request was never sent.
//
// Everything else, a server's answer of any code included, may be cured by
// waiting: a host not yet in DNS, a server not yet listening, a credential
// not yet bound to a role (401, 403), an overloaded or failing server, a
// proxy's error page, a stream cut or garbled on the way. A kubelet retries
// all of those, and so does a reflector whose GiveUp is NeedsConfigChange.
func NeedsConfigChange(err error) bool {
	return IsCertificateError(err) || isMissingFile(err)
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
