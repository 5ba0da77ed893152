// Package cli is the podwatch command: its subcommands, flags and output. The
// program in cmd/podwatch only wires a signal context and the process's
// standard streams to Main, so that everything here runs in tests.
//
// Subcommands:
//
//	podwatch watch  [flags]            the kubelet's pod config against a cluster, printing every update
//	podwatch watch  --replay FIXTURE   the same against a recorded fixture served inside the process
//	podwatch record --out DIR [flags]  a watch whose HTTP exchanges are saved as a fixture
//	podwatch serve  FIXTURE --addr A   a fake apiserver replaying a fixture
//	podwatch version
//
// Main returns the exit status: 0 on success, on Ctrl-C (the caller's context
// ending) and once --max-events or a replay is complete; 1 after a failure,
// reported as one line on stderr; 2 for a usage error.
//
// Output goes to stdout in one of three formats (-o text|json|yaml); the json
// schema is stable, one pod update per line:
//
//	{"op":"SET|ADD|UPDATE|REMOVE|DELETE|RECONCILE","source":"api|file|http","pods":[...]}
//
// with the pods sorted by namespace and name, each the full object. With
// --events, the api source's raw watch events are printed instead, byte for
// byte as the server sent them under -o json. Diagnostics (-v, progress,
// warnings) go to stderr and never hold a credential.
package cli
