// Package gap is the trace's gap audit: what a client missed while it was
// away from the watch.
//
// A client that relists (after a 410, a refused change, or a watch list
// after a break) replaces its whole store in one step, and the pushes only
// show the difference. The audit tells what that difference means: each
// pod the client held that the new state no longer has was deleted without
// the client seeing its DELETED, and each pod whose resourceVersion moved
// on had changes the client never saw. A Ledger (a recording being
// replayed, a model) adds the pods that came and went entirely while the
// client was away. A watch resumed from the last resourceVersion applied
// needs no audit: the server sends every change after it, or answers 410,
// and a relist follows.
//
// It reads the relists of podwatch's own store from the replace decisions
// a trace.Tracer records (Record.Relist: what the store held and what
// replaces it), and those of a proxy's clients from package versions
// (Audit.Relisted), and writes a missed step for each change missed, just
// after the step that shows it.
package gap
