// Package cluster runs a real kube-apiserver and etcd on loopback for
// podwatch's tests.
//
// The two binaries are built from the Go module proxy, each in its own
// nested module under build/ (build/apiserver and build/etcd), so that the
// main module never depends on Kubernetes or etcd. EnsureBinaries builds them
// into a cache folder ignored by git (<repo>/.cache/bin by default) only when
// they are missing or when the nested go.mod or go.sum changed since the last
// build. Ensure builds the same way the outside clients that judge podwatch's
// servers: kubectl at the cluster's version (build/kubectl) and an older one
// (build/kubectl132).
//
// Start launches etcd and then the apiserver on free loopback ports with a
// fresh data folder, its own CA and serving certificate (so clients verify
// TLS for real), static bearer tokens and RBAC, and waits until both are
// ready. The returned Cluster owns both processes until Close. Tests usually
// call StartForTest, which also closes the cluster when the test ends and
// prints the processes' log tails when it failed.
//
// The package uses only the standard library: its small admin helpers (Do,
// CreatePod, ...) speak plain JSON over net/http, so that a bug in podwatch's
// own client cannot hide behind a harness built on it.
package cluster
