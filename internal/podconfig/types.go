package podconfig

import (
	"fmt"
	"strconv"

	"github.com/podwatch/podwatch/rest/api"
)

// Op says what a PodUpdate means.
type Op int

// The operations. The zero Op is invalid, so that a zero PodUpdate is refused
// rather than taken as "this source has no pods".
const (
	// SET is the whole current state of a source.
	SET Op = iota + 1
	// ADD carries pods new to PodConfig's consumer.
	ADD
	// UPDATE carries pods whose spec, labels, annotations or deletion fields changed.
	UPDATE
	// REMOVE carries pods that are gone from their source.
	REMOVE
	// DELETE carries pods that got a deletionTimestamp: a graceful delete.
	DELETE
	// RECONCILE carries pods whose status alone changed.
	RECONCILE
)

var opNames = [...]string{SET: "SET", ADD: "ADD", UPDATE: "UPDATE", REMOVE: "REMOVE", DELETE: "DELETE", RECONCILE: "RECONCILE"}

func (o Op) String() string {
	if o >= SET && int(o) < len(opNames) {
		return opNames[o]
	}
	return "Op(" + strconv.Itoa(int(o)) + ")"
}

// PodUpdate is a set of pods and what happened to them. On a source's channel,
// Source is ignored (the channel names the source); on Updates it names the source
// whose change produced the update.
type PodUpdate struct {
	Pods   []*api.Pod
	Op     Op
	Source string
}

// The sources a kubelet knows.
const (
	SourceAPI  = "api"
	SourceFile = "file"
	SourceHTTP = "http"
)

// Annotations PodConfig and the static sources set, and the one the apiserver's
// mirror pods carry.
const (
	// SourceAnnotation names the source a pod came from.
	SourceAnnotation = "kubernetes.io/config.source"
	// SeenAnnotation is when PodConfig first saw the pod (RFC 3339, UTC, ns).
	SeenAnnotation = "kubernetes.io/config.seen"
	// HashAnnotation holds a static pod's UID, which hashes its manifest.
	HashAnnotation = "kubernetes.io/config.hash"
	// MirrorAnnotation marks a mirror pod: the apiserver's copy of a static pod.
	MirrorAnnotation = "kubernetes.io/config.mirror"
)

// IsMirrorPod reports whether p is a mirror pod. Mirror pods come through the api
// source and stay in PodConfig's output, marked by this annotation, so that a
// consumer can match them with the static pods they mirror.
func IsMirrorPod(p *api.Pod) bool {
	_, ok := p.Metadata.Annotations[MirrorAnnotation]
	return ok
}

// IsStaticPod reports whether p came from a static source (file or http).
func IsStaticPod(p *api.Pod) bool {
	s := p.Metadata.Annotations[SourceAnnotation]
	return s != "" && s != SourceAPI
}

// FullName is the name PodConfig uses to spot duplicates: namespace/name.
func FullName(p *api.Pod) string { return p.Metadata.Namespace + "/" + p.Metadata.Name }

// Mode chooses how PodConfig publishes changes.
type Mode int

const (
	// Incremental (the kubelet's default, and the zero Mode) publishes REMOVE,
	// ADD, UPDATE, DELETE and RECONCILE updates, each only when it has pods, in
	// that order; a source's first SET that adds, updates and deletes nothing
	// yields an empty ADD so the consumer learns the source is ready.
	Incremental Mode = iota
	// Snapshot publishes a SET of every source's pods whenever pods were added,
	// updated, deleted or removed, and on a source's first SET; a status-only
	// change publishes nothing.
	Snapshot
	// SnapshotAndUpdates publishes a SET of every source's pods when pods were
	// added or removed and on a source's first SET, then the UPDATE and DELETE
	// updates as they are.
	SnapshotAndUpdates
)

func (m Mode) String() string {
	switch m {
	case Incremental:
		return "Incremental"
	case Snapshot:
		return "Snapshot"
	case SnapshotAndUpdates:
		return "SnapshotAndUpdates"
	}
	return "Mode(" + strconv.Itoa(int(m)) + ")"
}

// DuplicateError reports a pod dropped because an earlier pod of the same update
// had its full name (or its UID): the first one wins, as in the kubelet.
type DuplicateError struct {
	Source string
	Pod    string // namespace/name of the dropped pod
	UID    string
	// ByUID is true when the UID, not the name, was the duplicate.
	ByUID bool
}

func (e *DuplicateError) Error() string {
	what := "name"
	if e.ByUID {
		what = "uid"
	}
	return fmt.Sprintf("podconfig: source %s: pod %s (uid %q) has a duplicate %s, ignoring it", e.Source, e.Pod, e.UID, what)
}

// UpdateError reports an update PodConfig refused: an unknown Op, or a pod that
// cannot be keyed (no UID, or a nil pod).
type UpdateError struct {
	Source string
	Op     Op
	Reason string
}

func (e *UpdateError) Error() string {
	return fmt.Sprintf("podconfig: source %s: %s update: %s", e.Source, e.Op, e.Reason)
}
