// Package replay is what the replay of a recorded fixture needs on the
// command side, shared by podwatch watch --replay and podwatch serve: the
// fault flags (--fault, --faults, --http2), the reading of a recording's
// first pods requests (what it was recorded with), the replay server's
// -v 6 log, and the Monitor that tells when an in-process replay is over and
// when its client has settled.
//
// The fixture server itself is internal/fixture; this package is the glue
// between it and the commands, kept apart from base because only the
// commands that replay need it.
package replay
