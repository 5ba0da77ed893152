// Package benchserver is a synthetic apiserver for benchmarks: N copies of one
// pod bound to a node, each with its own name, uid and resourceVersion, served
// as a list (limit and continue), a watch of M MODIFIED events after them, or
// a streaming watch list (the copies as ADDED events, then the
// initial-events-end bookmark, then the events).
//
// Pods are made on the fly from the template's bytes, so 50,000 of them cost
// the server no more memory than one; the same bytes feed podwatch and
// client-go, so both sides decode the same work.
//
// It is for make bench only, never linked into podwatch: the benchserver
// tool (cmd/benchserver) serves it and writes its watch as a stream file,
// and benchrun (cmd/benchrun) measures podwatch and client-go against it.
package benchserver
