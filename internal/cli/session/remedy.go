package session

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/podwatch/podwatch/internal/cli/base"
	"github.com/podwatch/podwatch/internal/fixture"
	"github.com/podwatch/podwatch/rest"
)

// givesUp is the reflector's GiveUp: what ends a run before its first
// sync because no retry could cure it. Beyond what needs a configuration
// change whatever the server does (rest.NeedsConfigChange), that is a host
// DNS does not know, which at the first connection is most likely a wrong
// name (once the host has answered, it is retried: DNS may be changing, and
// a kubelet waits it out), and a podwatch replay server's 400 for a scope
// its recording does not hold, which it will never hold.
func givesUp(err error) bool {
	return rest.NeedsConfigChange(err) || rest.IsHostNotFound(err) || fixture.RecordedScopes(err) != nil
}

// withRemedy adds to a failure the reflector gave up on (givesUp) what the
// user should change; host is the server's URL.
func withRemedy(err error, host *url.URL) error {
	if scopes := fixture.RecordedScopes(err); scopes != nil {
		se, _ := rest.AsStatusError(err)
		return &scopeError{err: err, where: se.Where, scopes: scopes}
	}
	return base.WithConnRemedy(err, host)
}

// scopeError is a replay server's refusal of a scope its recording does
// not hold. It says which it holds and the flags that watch them, and
// leaves out the server's own message, which says as much for people.
type scopeError struct {
	err    error
	where  string
	scopes []fixture.Scope
}

func (e *scopeError) Error() string {
	what := make([]string, len(e.scopes))
	use := make([]string, len(e.scopes))
	for i, sc := range e.scopes {
		what[i], use[i] = sc.String(), watchFlags(sc)
	}
	return fmt.Sprintf("the server's recording holds only the pods of %s, so it refused %s: use %s",
		strings.Join(what, " or "), e.where, strings.Join(use, " or "))
}

func (e *scopeError) Unwrap() error { return e.err }

// watchFlags are the flags of watch that ask for the pods of sc.
func watchFlags(sc fixture.Scope) string {
	var flags []string
	if node, ok := sc.Node(); ok && sc.FieldSelector == "spec.nodeName="+node {
		flags = append(flags, "--node "+node)
	} else {
		flags = append(flags, "--all-nodes")
		if sc.FieldSelector != "" {
			flags = append(flags, "--field-selector "+sc.FieldSelector)
		}
	}
	if sc.Namespace != "" {
		flags = append(flags, "--namespace "+sc.Namespace)
	}
	if sc.LabelSelector != "" {
		flags = append(flags, "--selector "+sc.LabelSelector)
	}
	return strings.Join(flags, " ")
}
