// Package watchcmd is podwatch watch: the kubelet's pod config (the pods
// bound to a node, listed and watched from the apiserver, plus static pods)
// printed update by update on stdout, against a cluster or, with --replay,
// against a recorded fixture served inside the process until every
// recorded exchange has been played.
package watchcmd
