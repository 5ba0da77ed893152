package trace

import (
	"encoding/json"
	"time"
)

// The kinds of step that answer the questions people bring to a watch after
// the fact: is it dead or quiet (stall), what was missed while away (missed).
const (
	KindStall  Kind = "stall"  // an open watch has been silent past a threshold
	KindMissed Kind = "missed" // a relist or resume shows a change the client never saw
)

// Stall is an open watch's silence, told once it passes the threshold the
// run set (package stall), and again each time its verdict grows
// graver. The silence began at the step's At less SinceByte, and ends with
// the next read or body-end of the same request; a silence after that is
// told anew.
type Stall struct {
	// SinceByte, SinceEvent and SinceBookmark are the age of the watch's
	// last body byte, last event and last BOOKMARK; an age is measured from
	// the response headers when nothing has come yet.
	SinceByte     time.Duration `json:"-"`
	SinceEvent    time.Duration `json:"-"`
	SinceBookmark time.Duration `json:"-"`
	// Bookmarks is whether the watch asked for bookmarks, Timeout the
	// timeoutSeconds it sent (0: none).
	Bookmarks bool          `json:"allowWatchBookmarks"`
	Timeout   time.Duration `json:"-"`
	// Verdict is "quiet" (silence the protocol allows), "overdue" (a
	// bookmark or the timeout's end should have come by now) or "dead".
	Verdict string `json:"verdict"`
	Explain string `json:"explain"`
}

// The verdicts of a stall (Stall.Verdict), mildest first.
const (
	VerdictQuiet   = "quiet"
	VerdictOverdue = "overdue"
	VerdictDead    = "dead"
)

// Missed is one change a client did not see as an event, found by comparing
// what a relist or a resumed watch shows with what the client held.
type Missed struct {
	// How is "deleted" (the pod is gone, its DELETED never seen), "skipped"
	// (its resourceVersion jumped past changes never seen) or "unseen"
	// (added and gone again while away, known only to a recording or model).
	How       string `json:"how"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// From is the last resourceVersion the client saw of the pod, To the
	// first it sees after the gap (empty when it is gone). For an unseen
	// pod they are its first and last change the ledger knows.
	From string `json:"from,omitempty"`
	To   string `json:"to,omitempty"`
	// State is the resourceVersion of the state that shows the gap: the
	// relist's list or watch list. A deleted pod was gone by then.
	State   string `json:"state,omitempty"`
	Explain string `json:"explain"`
}

// The ways a change can be missed (Missed.How).
const (
	MissedDeleted = "deleted"
	MissedSkipped = "skipped"
	MissedUnseen  = "unseen"
)

// Change is one field that a MODIFIED event changed, in the manner of a JSON
// patch operation: Op is "add", "remove" or "replace", Path a JSON pointer.
type Change struct {
	Op    string          `json:"op"`
	Path  string          `json:"path"`
	From  json.RawMessage `json:"from,omitempty"`
	Value json.RawMessage `json:"value,omitempty"`
}
