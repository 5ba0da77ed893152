// Package apiwire writes the apiserver's wire forms for podwatch's own servers
// (the fixture replay, the model apiserver, the fault injector): Status bodies,
// list pages and their continue tokens, watch event lines and the bookmark
// that closes a watch list's initial events.
//
// Each form is written in one place so that every server answers a client the
// same way, and the way a real kube-apiserver does: members in the apiserver's
// order, strings escaped as JSON, one event a line.
//
// Servers write JSON; Respond negotiates the form each client gets from its
// Accept header and converts, so that a protobuf client (the kubelet) is
// answered in protobuf (envelopes and watch frames), and kubectl, which
// asks for a meta.k8s.io Table of the pods, gets the Tables the apiserver
// prints for them (package table), by every server alike.
package apiwire
