package probe

import (
	"fmt"

	"github.com/podwatch/podwatch/rest"
)

// PermissionError is a request the server refused with 403: the probe's
// credentials lack the permission to Verb the Resource in Namespace ("" for
// every namespace, as a node's pods are watched).
type PermissionError struct {
	Verb, Resource, Namespace string
	Err                       error
}

func (e *PermissionError) Error() string {
	where := "in namespace " + e.Namespace
	if e.Namespace == "" {
		where = "across all namespaces"
	}
	return fmt.Sprintf("probe needs permission to %s %s %s, which these credentials lack: %v", e.Verb, e.Resource, where, e.Err)
}

func (e *PermissionError) Unwrap() error { return e.Err }

// CanaryError is a canary that cannot be used: the name is taken by a pod
// bound to another node (whose changes the node's watch never sees).
type CanaryError struct {
	Namespace, Name, Node, BoundTo string
}

func (e *CanaryError) Error() string {
	bound := "no node"
	if e.BoundTo != "" {
		bound = "node " + e.BoundTo
	}
	return fmt.Sprintf("canary pod %s/%s exists bound to %s, not %s: give another --canary name", e.Namespace, e.Name, bound, e.Node)
}

// CleanupError is a canary the probe could not delete when it ended.
type CleanupError struct {
	Namespace, Name string
	Err             error
}

func (e *CleanupError) Error() string {
	return fmt.Sprintf("delete canary pod %s/%s (delete it by hand): %v", e.Namespace, e.Name, e.Err)
}

func (e *CleanupError) Unwrap() error { return e.Err }

// step wraps a request's error: a 403 as a *PermissionError, anything else
// with what was being done.
func step(verb, namespace, what string, err error) error {
	if rest.IsForbidden(err) {
		return &PermissionError{Verb: verb, Resource: "pods", Namespace: namespace, Err: err}
	}
	return fmt.Errorf("%s %s: %w", verb, what, err)
}
