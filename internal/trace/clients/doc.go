// Package clients tells what a proxy's clients' requests reveal of their
// reflectors. A proxy's trace cannot see a client's reflector, only its
// requests; but the requests tell a good deal.
//
// It reads, from the steps a trace.Tracer records, the requests of a
// collection that trace.WithClient marked as another client's, their
// answers, their watches' events and the ends of their bodies. For each
// client and each collection it keeps what the client did last, and writes
// as a decision step of that client's (Step.Client set), just ahead of the
// request that reveals it: a list after a watch is a relist (and from
// which resourceVersion), a watch from a resourceVersion after a watch is
// a resume (from the last one its watches carried, or not), a watch list
// comes some time after the previous one, and the gap between a failed
// request and the next is the client's backoff.
//
// Package versions reads the relist decisions, for the gap audit of each
// client: Clients goes ahead of it in trace.Options.Analyses.
package clients
