package kubeconfig

import (
	"errors"
	"fmt"
	"strings"
)

// ErrEmptyConfig is returned when no kubeconfig file defines anything and no
// server was given, so there is nothing to connect to.
var ErrEmptyConfig = errors.New("kubeconfig: no configuration found: no kubeconfig file defines a cluster and no server was given")

// ErrNotInCluster is returned by InCluster when KUBERNETES_SERVICE_HOST or
// KUBERNETES_SERVICE_PORT is unset, i.e. the process is not running in a pod.
var ErrNotInCluster = errors.New("kubeconfig: not running in a cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be set")

// FileError reports a kubeconfig (or a file it names) that could not be read or
// parsed. Err is the cause; errors.Is(err, fs.ErrNotExist) tells a missing file.
type FileError struct {
	// Path is the file as the user named it.
	Path string
	Err  error
}

func (e *FileError) Error() string { return "kubeconfig " + e.Path + ": " + e.Err.Error() }
func (e *FileError) Unwrap() error { return e.Err }

// NotFoundError reports a context, cluster or user name that no kubeconfig
// file defines.
type NotFoundError struct {
	// Kind is "context", "cluster" or "user".
	Kind string
	Name string
	// Context is the context that named the missing cluster or user; it is
	// empty when the name came from a flag or from current-context.
	Context string
	// Files are the kubeconfig files that were read, in order.
	Files []string
}

func (e *NotFoundError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "kubeconfig: %s %q", e.Kind, e.Name)
	if e.Context != "" {
		fmt.Fprintf(&b, " (named by context %q)", e.Context)
	}
	b.WriteString(" is not defined")
	if len(e.Files) == 0 {
		b.WriteString(": no kubeconfig file was read")
	} else {
		fmt.Fprintf(&b, " in %s", strings.Join(e.Files, ", "))
	}
	return b.String()
}

// AuthProviderError reports a user with an auth-provider section. Kubernetes
// clients dropped the in-tree providers (gcp, azure, oidc); an exec credential
// plugin replaces them.
type AuthProviderError struct {
	User     string
	Provider string
	// Origin is the kubeconfig file that defined the user.
	Origin string
}

func (e *AuthProviderError) Error() string {
	return fmt.Sprintf("kubeconfig %s: user %q uses auth-provider %q, which Kubernetes clients no longer support; "+
		"configure an exec credential plugin instead (for example gke-gcloud-auth-plugin for GKE, "+
		"kubelogin for Azure or OIDC)", e.Origin, e.User, e.Provider)
}

// ConfigError reports a setting that cannot work: a cluster with no server, a
// client certificate without its key, two authentication methods at once, an
// unknown exec apiVersion. It never quotes a credential.
type ConfigError struct {
	// Kind is "cluster", "user" or "context"; empty for a command-line option.
	Kind string
	Name string
	// Field is the kubeconfig key or option at fault, e.g. "proxy-url".
	Field  string
	Reason string
	// Err is an underlying cause, if any (a URL parse error, an I/O error).
	Err error
}

func (e *ConfigError) Error() string {
	var b strings.Builder
	b.WriteString("kubeconfig: ")
	if e.Kind != "" {
		fmt.Fprintf(&b, "%s %q: ", e.Kind, e.Name)
	}
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	b.WriteString(e.Reason)
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

func (e *ConfigError) Unwrap() error { return e.Err }

// ExecError reports an exec credential plugin run that failed or printed
// something that is not a usable ExecCredential. It never holds the plugin's
// standard output.
type ExecError struct {
	// User is the kubeconfig user the plugin belongs to.
	User    string
	Command string
	// Reason says what went wrong, without credentials.
	Reason string
	// ExitCode is the plugin's exit status when it ran and failed; -1 otherwise.
	ExitCode int
	// NotFound is true when the command could not be found or started.
	NotFound bool
	// InstallHint is the kubeconfig's installHint, shown when NotFound.
	InstallHint string
	Err         error
}

func (e *ExecError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "exec plugin %q for user %q: %s", e.Command, e.User, e.Reason)
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	if e.NotFound && e.InstallHint != "" {
		b.WriteString("\n")
		b.WriteString(e.InstallHint)
	}
	return b.String()
}

func (e *ExecError) Unwrap() error { return e.Err }
