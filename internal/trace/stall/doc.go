// Package stall tells when an open watch has gone silent too long, and
// whether that silence is one the protocol allows: the trace's stall
// analysis.
//
// It reads, from the steps a trace.Tracer records, each watch request's
// parameters (allowWatchBookmarks, timeoutSeconds, resourceVersion,
// sendInitialEvents), its 2xx response, every read and event of its body
// and the body's end. On a clock of its own (a trace.Runner: a ticker, a
// test's ticks, or a replay's virtual clock) it judges each watch silent
// past Options.After and writes a stall step for it through
// trace.Tracer.Judge, with a verdict: quiet (a silence the apiserver's
// cadence allows), overdue (a bookmark should have come) or dead (past the
// time the server ends a watch). A silence is told once, and again each
// time its verdict grows graver; a byte ends it.
//
// Silence holds the rules on their own, for the progress line, which judges
// the reflector's current watch without a trace.
package stall
