# compat.mk: the compatibility suite (internal/compat, a nested module):
# client-go's reflector as the kubelet runs it, and kubectl 1.37 and 1.32,
# judging podwatch's servers (podwatch serve of every bundled fixture, clean
# and under every fault; the model apiserver over seeded churn). The main
# Makefile includes this file; `make test` runs it.
#
#   make test-compat   run the suite (its runs mostly wait on replayed
#                      timing, so many run at once): about 2.5 min warm

COMPAT_PARALLEL ?= 32

.PHONY: test-compat
test: test-compat
test-compat: cluster-bins
	cd internal/compat && GOWORK=off $(GO) test -count=1 -parallel $(COMPAT_PARALLEL) -timeout 20m ./...
