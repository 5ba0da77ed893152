package source

import (
	"errors"
	"fmt"
)

// ManifestError is a static pod manifest that could not be used. The other pods
// of the source keep flowing.
type ManifestError struct {
	Source   string // podconfig.SourceFile or podconfig.SourceHTTP
	Location string // the file's path or the URL
	Err      error  // a YAML or *jsonx.SyntaxError, an *InvalidPodError, ErrTooLarge, ...
}

func (e *ManifestError) Error() string {
	return fmt.Sprintf("%s source: manifest %s: %v", e.Source, e.Location, e.Err)
}

func (e *ManifestError) Unwrap() error { return e.Err }

// InvalidPodError is a decoded manifest that is not a usable pod.
type InvalidPodError struct {
	Pod    string // the pod's name as the manifest gives it, if any
	Field  string // e.g. "metadata.name", "spec.containers[0].image"
	Reason string
}

func (e *InvalidPodError) Error() string {
	if e.Pod == "" {
		return fmt.Sprintf("invalid pod: %s: %s", e.Field, e.Reason)
	}
	return fmt.Sprintf("invalid pod %q: %s: %s", e.Pod, e.Field, e.Reason)
}

// HTTPStatusError is a manifest URL answering something other than 200 OK.
type HTTPStatusError struct {
	URL        string
	StatusCode int
	Status     string
}

func (e *HTTPStatusError) Error() string {
	return fmt.Sprintf("http source: GET %s: %s", e.URL, e.Status)
}

var (
	// ErrEmptyBody is a manifest URL answering 200 with nothing: the source
	// then has no pods, and says so with an empty SET.
	ErrEmptyBody = errors.New("empty manifest")
	// ErrTooLarge is a manifest over MaxManifestSize.
	ErrTooLarge = errors.New("manifest too large")
)

// MaxManifestSize bounds a manifest file or body (10 MiB, as the kubelet's).
const MaxManifestSize = 10 << 20
