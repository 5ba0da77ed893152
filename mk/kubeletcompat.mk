# kubeletcompat.mk: podwatch's pod config against the real kubelet's
# (internal/kubeletcompat, a nested module importing k8s.io/kubernetes
# pkg/kubelet/config at the cluster's version), both fed from one real
# apiserver in protobuf and in JSON and compared update for update. The main
# Makefile includes this file; `make test` runs it.
#
#   make test-kubeletcompat   about 25 s warm; the first build compiles
#                             the kubelet's config package and what it
#                             pulls in (see the README's timings)

.PHONY: test-kubeletcompat
test: test-kubeletcompat
test-kubeletcompat: cluster-bins
	cd internal/kubeletcompat && GOWORK=off $(GO) vet ./... && GOWORK=off $(GO) test -count=1 -timeout 15m ./...
