// Package base is what the podwatch commands share: the environment a
// command runs in (Env) and its exit statuses, usage and status errors, the
// flag set every command parses with (Command) and the flags several take
// (kubectl's connection flags, -o, the trace's), the rest.Config those
// connection flags resolve to, the stderr log with its progress line and
// the -v HTTP log, the server a replay, serve and the proxy listen with,
// and the version.
//
// Each command is a package of its own under internal/cli that imports
// this one and never another command's: what one command keeps unexported
// no other can reach.
package base
