// Package model is a model apiserver for convergence tests: it holds the true
// set of pods at every resourceVersion, applies a seeded random history of
// creates, bindings, spec and status updates and deletes (some on other
// nodes), serves list and watch over an in-memory network with the
// resourceVersion semantics of a real apiserver, moves a compaction point
// forward (410 for older versions), restarts (every connection dropped, the
// resourceVersion carries on), and injects the faults of package fault plus
// dead connections.
//
// A Checker records what a watcher's undelta store pushed and proves each push
// a state the server really had (History.StateAt), never older than the push
// before, and the last one equal to the final state. The same Checker runs
// against a real apiserver, over a History built from what an admin client
// saw.
//
// The Server is also an http.Handler: podwatch serve --simulate serves it on
// a real listener, its history churned by Churner.Churn, for outside clients.
//
// Everything runs on the caller's clock: inside a testing/synctest bubble a
// whole history takes milliseconds of real time. The network is made of
// net.Pipe connections, whose blocking synctest understands.
package model
