// Package versions keeps what each client of a trace has been sent of each
// object, and tells what each MODIFIED event changed against it: the
// trace's version diffs (--diff), and the state the gap audit of a proxy's
// clients compares a relist with.
//
// It reads, from the steps a trace.Tracer records, each request of a
// collection (its client, collection and selectors make its scope), its 2xx
// answer, the bytes of a list's body (Record.Body), each watch event's
// object (Record.Object, in whatever wire format it came, transcoded to
// JSON) and the end of each body; and the relist decisions that package
// clients tells of a proxy's clients. It writes Event.Diff and
// Event.DiffFrom on each MODIFIED event before the event is told, and hands
// each proxied client's relist, once the state it brings has all come, to
// Options.Relisted (the gap audit's).
//
// Versions are kept per scope, so that a proxy's clients, and one client's
// different watches, never see each other's versions. A list (its first
// page) replaces a scope's versions, its later pages add to them; a watch
// list, and a watch from no resourceVersion or "0", empty it, as their
// initial ADDED events fill it again; ADDED and MODIFIED keep the new
// version and DELETED drops it. So a scope holds at most the objects its
// client holds. Without diffs (DiffOff) each object is kept as its
// resourceVersion alone.
//
// DiffJSON, the diff itself, serves the watch command's JSON output too.
package versions
