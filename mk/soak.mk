# soak.mk: the api source's soak at full length. go test -race runs TestSoak
# short (the race detector slows it some six times); this runs a million
# watch events without it, where growth of the heap or the goroutines would
# show. The main Makefile includes this file; make test runs it beside the
# compatibility suite (mk/compat.mk).

SOAK_EVENTS ?= 1000000

.PHONY: test-soak
test-soak:
	$(GO) test -count=1 -timeout 20m -run '^TestSoak$$' -v ./internal/podconfig/source -soak.events=$(SOAK_EVENTS)
