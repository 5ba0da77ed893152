# podwatch: make run (the recorded-fixture demo), make test (everything, -race).
GO ?= go
export GOTOOLCHAIN := local
PKGS := ./...

.DEFAULT_GOAL := all
-include mk/*.mk

.PHONY: all build test unit lint fuzz bench bench-go run fixtures clean

all: lint test

build:
	$(GO) build -o bin/podwatch ./cmd/podwatch

# Every test, the real-apiserver ones included, with the race detector, after
# a short run of every fuzz target.
test: lint cluster-bins fuzz-ci
	$(GO) test -race -count=1 -timeout 20m $(PKGS)
test: chromium # the browser test's (mk/chromium.mk)

# The quick loop: no race detector, cached results allowed, and -short, which
# skips only the tests that need the real kube-apiserver and etcd (they never
# build or start them); make test runs those too.
unit:
	$(GO) test -short $(PKGS)

# gofmt, go vet, and the rules of the code no compiler keeps (internal/rules:
# one file spells the protobuf and CBOR media types, the reader's packages
# import none of podwatch's, no package over 3,500 lines, no CBOR library
# under the public packages).
lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet $(PKGS)
	$(GO) run ./internal/rules/cmd/rules

# A short run of every fuzz target (FUZZTIME each). A crasher is saved under
# the package's testdata/fuzz, where it stays as a regression case.
FUZZTIME ?= 10s
FUZZMINTIME ?= 2s
# Targets are found by their declarations, which saves building every
# package's tests just to list them.
fuzz:
	@for file in $$(git ls-files --cached --others --exclude-standard '*_test.go' | xargs grep -l '^func Fuzz'); do \
	  pkg=./$$(dirname $$file); \
	  for f in $$(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' $$file); do \
	    echo "fuzz $$pkg $$f"; $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINTIME) $$pkg || exit 1; \
	  done; \
	done

# CI's bounded fuzzing: every target for a count of inputs, not a time. A
# duration ends on a deadline that Go 1.26's fuzz coordinator can report as
# a failure ("context deadline exceeded", no crasher) when a loaded machine
# holds a worker mid-input; a count has no deadline to race.
.PHONY: fuzz-ci converge
fuzz-ci:
	@$(MAKE) --no-print-directory fuzz FUZZTIME=6000x FUZZMINTIME=500x

# The convergence run at scale: SEEDS seeds per fault kind from SEED_FROM
# (CI's go test runs 100 from 1), one summary line per kind.
SEEDS ?= 2000
SEED_FROM ?= 1000
converge:
	@out=$$(mktemp); $(GO) test -count=1 -timeout 120m -run '^TestConverge$$' -v ./cache \
	  -converge.seeds=$(SEEDS) -converge.from=$(SEED_FROM) >$$out 2>&1; rc=$$?; \
	  grep -vE '^ *(=== (RUN|PAUSE|CONT|NAME)|--- PASS)' $$out; rm -f $$out; exit $$rc

# The demo: the bundled fixture recorded from a real apiserver, replayed through
# podwatch with its protocol trace on stderr (each request with its parameters
# explained, each response, event, reflector decision and push) and the pod
# updates on stdout. No cluster needed. FIXTURE=watch-list shows the streaming
# watch list; TRACE sets the trace flags, e.g. TRACE="--trace --http2" adds the
# HTTP/2 frames, TRACE="--trace-html run.html" draws the run instead.
FIXTURE ?= lifecycle
SPEED ?= 1
TRACE ?= --trace
run:
	$(GO) run ./cmd/podwatch watch --replay testdata/fixtures/$(FIXTURE) --speed $(SPEED) $(TRACE)

# Re-record the bundled fixtures from a real kube-apiserver and etcd, then refresh
# the goldens that replay them.
fixtures: cluster-bins
	$(GO) run ./internal/fixture/cmd/record-fixtures -out testdata/fixtures
	$(GO) test ./internal/fixture -run TestBundledFixturesReplay -update

# podwatch and client-go v0.37.2 side by side on the same synthetic apiserver and
# stream (benchserver, docs/BENCH.md): one table with the ratios. A few minutes
# on 2 cores. BENCHFLAGS=-quick makes a smoke run of small scenarios.
bench:
	$(GO) build -o bin/podwatch ./cmd/podwatch
	$(GO) build -o bin/benchserver ./internal/benchserver/cmd/benchserver
	cd internal/benchcmp && $(GO) build -o ../../bin/clientgo-bench ./cmd/clientgo-bench
	$(GO) run ./internal/benchserver/cmd/benchrun $(BENCHFLAGS)

# The Go benchmarks of every package, allocations reported.
bench-go:
	$(GO) test -run '^$$' -bench . -benchmem $(PKGS)

clean:
	rm -rf bin
