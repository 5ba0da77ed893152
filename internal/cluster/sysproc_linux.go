package cluster

import "syscall"

// sysProcAttr makes the kernel kill etcd and the apiserver if the test
// process dies without cleaning up (a go test timeout, a SIGKILL), so they
// never outlive it holding ports and data folders.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
