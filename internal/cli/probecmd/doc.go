// Package probecmd is podwatch probe: how stale the node's pod watch is,
// measured by patching a timestamp onto a canary pod and timing its arrival
// on podwatch's own watch (internal/probe), a line per probe and a summary.
package probecmd
