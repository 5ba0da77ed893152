// Package cli is the podwatch command: Main reads the subcommand and hands
// the rest of the command line to that command's package. The program in
// cmd/podwatch only wires a signal context and the process's standard
// streams to Main, so that everything here runs in tests.
//
// Subcommands, each a package that imports base (what they share) and
// never another command:
//
//	podwatch watch  [flags]            watchcmd: the kubelet's pod config against a cluster, printing every update
//	podwatch watch  --replay FIXTURE   watchcmd: the same against a recorded fixture served inside the process
//	podwatch record --out DIR [flags]  recordcmd: a watch whose HTTP exchanges are saved as a fixture
//	podwatch serve  FIXTURE --addr A   servecmd: a fake apiserver replaying a fixture (or --simulate)
//	podwatch bench  sync|decode        benchcmd: benchmarks
//	podwatch proxy  [flags]            proxycmd: any client forwarded to the cluster, traced and recorded
//	podwatch check  [flags]            checkcmd: the battery of checks of a faithful watch server
//	podwatch diff   A B                diffcmd: where two recordings or JSON traces part
//	podwatch probe  --write [flags]    probecmd: a canary pod's annotation timed on the node's watch
//	podwatch version                   versioncmd
//
// watch and record share the session package (the pod config run, its
// flags and printer); watch and serve share the replay package.
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
