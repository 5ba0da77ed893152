// Package etcd pins etcd's library package so that go mod tidy keeps every
// requirement the binary needs. The binary itself is built with
// go build go.etcd.io/etcd/server/v3.
package etcd

import _ "go.etcd.io/etcd/server/v3/etcdmain"
