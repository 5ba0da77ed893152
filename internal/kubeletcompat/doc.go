// Package kubeletcompat holds a test that sets podwatch's pod config
// (internal/podconfig, fed by its api source) beside the real kubelet's
// (k8s.io/kubernetes pkg/kubelet/config, fed by the apiserver source the
// kubelet builds), both reading the same real kube-apiserver for the same
// node, in protobuf as the kubelet does and in JSON, and compares their
// update streams update for update: the operation, the source and the pods'
// keys, and then what the kubelet acts on of each pod (labels, image, phase,
// deletion fields).
//
// It is a nested module so that Kubernetes stays out of the main module; the
// package has no code of its own outside its tests.
package kubeletcompat
