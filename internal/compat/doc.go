// Package compat holds podwatch's compatibility suite: outside clients
// (client-go's reflector exactly as the kubelet runs it, and kubectl) pointed
// at podwatch's own servers, the fixture replay (`podwatch serve`) and the
// model apiserver, clean and under every injected fault. A server of
// podwatch's is only as good as a real client's view of it: every state the
// client pushes must be one the recording (or the model) had, its
// resourceVersions must never go back, and it must reach the final state.
//
// It is a nested module so that client-go stays out of the main module; the
// package has no code of its own outside its tests.
package compat
