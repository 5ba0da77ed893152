// Package e2e holds podwatch's tests against a real kube-apiserver and etcd,
// run on loopback by internal/cluster. Its tests drive podwatch's own client
// side (rest, watch, cache, the api pod source and podconfig) while the
// harness's admin helpers, which share no code with podwatch, make the
// changes and tell what the server holds, so that a bug in podwatch cannot
// hide behind a check built on podwatch.
//
// The package has no code outside its tests.
package e2e
