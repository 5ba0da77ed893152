# compat.mk: the compatibility suite (internal/compat, a nested module):
# client-go's reflector as the kubelet runs it, and kubectl 1.37 and 1.32,
# judging podwatch's servers (podwatch serve of every bundled fixture, clean
# and under every fault; the model apiserver over seeded churn). The main
# Makefile includes this file; `make test` runs it beside the soak
# (mk/soak.mk, test-compat-and-soak below).
#
#   make test-compat   run the suite (its runs mostly wait on replayed
#                      timing, so many run at once): about 2.5 min warm

COMPAT_PARALLEL ?= 32

.PHONY: test-compat test-compat-and-soak
test-compat: cluster-bins
	cd internal/compat && GOWORK=off $(GO) test -count=1 -parallel $(COMPAT_PARALLEL) -timeout 20m ./...

# The suite waits on replayed timing and the soak keeps one core busy, so side
# by side they take about as long as the suite alone (measured: 207 s against
# 195 + 168 s one after the other, each test's own time unchanged).
test: test-compat-and-soak
test-compat-and-soak: cluster-bins
	@$(MAKE) --no-print-directory -j2 test-compat test-soak
