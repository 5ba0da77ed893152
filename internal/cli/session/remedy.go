package session

import (
	"errors"

	"github.com/podwatch/podwatch/rest"
)

// remedyError is a failure that ends a run before its first sync because
// no retry could cure it, with what to change.
type remedyError struct {
	err    error
	remedy string
}

func (e *remedyError) Error() string { return e.err.Error() + "; " + e.remedy }
func (e *remedyError) Unwrap() error { return e.err }

// withRemedy adds to a failure the reflector gave up on (see
// rest.NeedsConfigChange, its GiveUp) what the user should fix.
func withRemedy(err error) error {
	var remedy string
	switch {
	case rest.IsCertificateError(err):
		remedy = "the server's certificate was not accepted: give the authority that signed it " +
			"(--certificate-authority, or the kubeconfig's certificate-authority-data), " +
			"the name it was made for (--tls-server-name), or renew it if it expired"
	case rest.NeedsConfigChange(err):
		remedy = "a file the configuration names (a token, a certificate, an exec plugin) cannot be read: fix its path or its permissions"
	default:
		return err
	}
	var re *remedyError
	if errors.As(err, &re) {
		return err
	}
	return &remedyError{err: err, remedy: remedy}
}
