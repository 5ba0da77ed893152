// Package apiserver pins the kube-apiserver's library package so that
// go mod tidy keeps every requirement the binary needs. The binary itself
// is built with go build k8s.io/kubernetes/cmd/kube-apiserver.
package apiserver

import _ "k8s.io/kubernetes/cmd/kube-apiserver/app"
