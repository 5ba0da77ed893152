// Package check is a battery of named checks that test whether a server (a
// kube-apiserver, a fake one, or a proxy in front of either) is a faithful
// watch server: that it answers list, watch, bookmarks, the streaming watch
// list, framing and errors as the protocol requires.
//
// Each Check has a name, what it proves, the Kubernetes version or feature
// gate it depends on, and the checks it builds on. Run runs them in order and
// gives each a Result: pass, fail, or not-applicable with the reason (a
// read-only run cannot cause an expired continue token; a check whose
// dependency did not pass is not applicable either, and says so). Every
// Result carries its Evidence: the requests (credentials masked as the trace
// masks them), what came back (status, protocol, Content-Type, the frame at
// issue with its stream offset, event type and resourceVersion) and, on a
// failure, what the protocol requires.
//
// The battery speaks through podwatch's own client and decoders (rest,
// watch, rest/meta), with a transport layer that records each exchange for
// the evidence. Every check is bounded by its context, and Run by
// Options.Timeout, so the battery ends in time even against a server that
// never ends a watch.
//
// The checks only read, unless Options.Write lets them create, change and
// delete throwaway pods (named podwatch-check-*) to cause changes; those are
// deleted before Run returns, also when it fails or runs out of time.
package check
