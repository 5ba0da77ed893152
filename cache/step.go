package cache

import (
	"time"

	"github.com/podwatch/podwatch/watch"
)

// StepKind names a reflector step.
type StepKind string

// The steps a Reflector reports.
const (
	StepList            StepKind = "list"             // a list request (one page)
	StepReplace         StepKind = "replace"          // the store was replaced with a listed state
	StepWatch           StepKind = "watch"            // a watch request
	StepWatchList       StepKind = "watch-list"       // a streaming watch list request
	StepWatchEnded      StepKind = "watch-ended"      // the server ended a watch cleanly; resume
	StepRelist          StepKind = "relist"           // the next sync lists again, and why (Cause)
	StepFallbackList    StepKind = "fallback-list"    // a watch list failed: list instead, and why (Fallback)
	StepBackoff         StepKind = "backoff"          // waiting after a failure
	StepEvent           StepKind = "event"            // a watch event was applied
	StepResourceVersion StepKind = "resource-version" // the last resourceVersion applied moved
	StepStopped         StepKind = "stopped"          // Run returned
)

// RelistCause says why a reflector lists again instead of resuming its watch.
type RelistCause int

// The causes of a relist.
const (
	// RelistGone is a watch whose resourceVersion the server can no longer
	// serve (410): the changes since then are lost, so the whole state is
	// fetched again.
	RelistGone RelistCause = iota + 1
	// RelistRefused is a change the store refused because it would take the
	// store back in time: the store and the server no longer agree.
	RelistRefused
	// RelistTooOld is a relist at the last resourceVersion applied that the
	// server can no longer serve (410): the most recent state, which is newer
	// still, is listed instead, at once.
	RelistTooOld
	// RelistPageExpired is a continued list page whose token expired (410):
	// the list is done again at once in one page, without limit.
	RelistPageExpired
)

func (c RelistCause) String() string {
	switch c {
	case RelistGone:
		return "gone"
	case RelistRefused:
		return "store-refused"
	case RelistTooOld:
		return "list-too-old"
	case RelistPageExpired:
		return "continue-expired"
	}
	return "none"
}

// FallbackCause says why a watch list gave way to a list.
type FallbackCause int

// The causes of a fallback to a list.
const (
	// FallbackFailed is a watch list that failed (refused, cut, garbled, a
	// frame too large, a 410, ended before its closing bookmark): this sync
	// lists, the next one tries a watch list again.
	FallbackFailed FallbackCause = iota + 1
	// FallbackUnsupported is a server that said it has no watch lists: every
	// later sync lists.
	FallbackUnsupported
	// FallbackNoEndBookmark is a watch list whose initial-events-end bookmark
	// did not come within ReflectorOptions.WatchListTimeout (Err is a
	// *WatchListTimeoutError): this sync lists.
	FallbackNoEndBookmark
)

func (c FallbackCause) String() string {
	switch c {
	case FallbackFailed:
		return "watch-list-failed"
	case FallbackUnsupported:
		return "watch-list-unsupported"
	case FallbackNoEndBookmark:
		return "no-end-bookmark"
	}
	return "none"
}

// Step is one thing the reflector did. Kind says which; the other fields are
// set as far as that kind has them.
type Step struct {
	Kind StepKind
	// ResourceVersion is, for a list, watch or watch list, the version asked
	// for ("" for the most recent state); for a replace, an event or a
	// resource-version step, the version applied; for a watch-ended step the
	// version the next watch resumes from; for a relist the version found too
	// old (RelistGone, RelistTooOld).
	ResourceVersion string
	// Match is the resourceVersionMatch a list or watch list asks with ("",
	// MatchNotOlderThan or MatchExact).
	Match string
	// Page numbers the pages of one list, from 1; later pages are read from
	// the snapshot of the first, named by their continue token.
	Page int
	// Cause says why a relist happens.
	Cause RelistCause
	// Fallback says why a watch list gave way to a list.
	Fallback FallbackCause
	// Wait is how long a backoff waits.
	Wait time.Duration
	// Items counts the objects of a replace, or the events a watch applied
	// before it ended cleanly.
	Items int
	// Event is the type of an applied event.
	Event watch.EventType
	// Err is the failure behind a backoff, a relist or a fallback-list, and
	// on a stopped step the failure Run gave up on (nil when its ctx ended).
	Err error
}

// Phase names the part of a reflector's loop a failure happened in.
type Phase string

// The phases of a PhaseError.
const (
	PhaseList      Phase = "list"       // a list request or its body
	PhaseWatchList Phase = "watch-list" // a streaming watch list, up to its closing bookmark
	PhaseWatch     Phase = "watch"      // a watch request or its stream
	PhaseStore     Phase = "store"      // the store refused what the server sent
)

// PhaseError is a failure in one phase of a reflector's loop, for one
// collection. Test the phase with errors.As:
//
//	var pe *cache.PhaseError
//	if errors.As(err, &pe) && pe.Phase == cache.PhaseList { ... }
type PhaseError struct {
	Phase Phase
	// Name is the collection, ReflectorOptions.Name ("pods").
	Name string
	Err  error
}

func (e *PhaseError) Error() string {
	if e.Name == "" {
		return string(e.Phase) + ": " + e.Err.Error()
	}
	return string(e.Phase) + " " + e.Name + ": " + e.Err.Error()
}

func (e *PhaseError) Unwrap() error { return e.Err }
