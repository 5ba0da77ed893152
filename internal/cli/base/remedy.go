package base

import (
	"errors"
	"net"
	"net/url"

	"github.com/podwatch/podwatch/rest"
)

// RemedyError is a failure that no retry could cure, with what to change.
type RemedyError struct {
	Err    error
	Remedy string
}

func (e *RemedyError) Error() string { return e.Err.Error() + "; " + e.Remedy }
func (e *RemedyError) Unwrap() error { return e.Err }

// WithConnRemedy adds to err, when the connection flags are at fault, what
// to change in them (see ConnRemedy); any other err is returned as it is.
func WithConnRemedy(err error, host *url.URL) error {
	var re *RemedyError
	if errors.As(err, &re) {
		return err
	}
	if r := ConnRemedy(err, host); r != "" {
		return &RemedyError{Err: err, Remedy: r}
	}
	return err
}

// whereServer is where a user sets the server's address.
const whereServer = "(--server, or the server of the kubeconfig's cluster)"

// ConnRemedy says what to change in the connection flags when err is a
// failure of theirs that no retry cures: an untrusted certificate, an https
// host that answers in plain HTTP, a host DNS does not know, a file the
// configuration names that cannot be read; "" for any other. host is the
// server's URL, which the remedy may name.
func ConnRemedy(err error, host *url.URL) string {
	switch {
	case rest.IsCertificateError(err):
		return "the server's certificate was not accepted: give the authority that signed it " +
			"(--certificate-authority, or the kubeconfig's certificate-authority-data), " +
			"the name it was made for (--tls-server-name), or renew it if it expired"
	case rest.IsSchemeMismatch(err):
		plain := "http://"
		if host != nil {
			u := *host
			u.Scheme = "http"
			plain = u.String()
		}
		return "the server speaks plain HTTP, not HTTPS: use " + plain + " " + whereServer
	case rest.IsHostNotFound(err):
		// The name looked up, which is a proxy's when one is on the way.
		var dns *net.DNSError
		errors.As(err, &dns)
		return "DNS does not know the host " + dns.Name + ": check the server's address " + whereServer
	case rest.NeedsConfigChange(err):
		return "a file the configuration names (a token, a certificate, an exec plugin) cannot be read: fix its path or its permissions"
	}
	return ""
}
