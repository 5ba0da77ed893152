// Package session is the run that podwatch watch and podwatch record share:
// the kubelet's pod config (or, with --events, its reflector alone) against
// a server, its flags and plan, the printer of its updates (-o text, json,
// yaml, --diff), the progress line, and the reasons it stops (Ctrl-C,
// --max-events, a replay played out, a failure no retry cures).
//
// It is a package of its own, not part of base, because it is one
// command's machinery that a second command runs whole: record adds a
// recorder beneath the trace, watch --replay a monitor and a clock, and
// neither needs to reach into how a session runs.
package session
