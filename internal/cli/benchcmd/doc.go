// Package benchcmd is podwatch bench: bench sync (the api source's
// reflector and undelta store until a push reflects a resourceVersion) and
// bench decode (a watch stream decoded in memory), each printing one JSON
// line (docs/BENCH.md).
package benchcmd
