# podwatch: make run (the recorded-fixture demo), make test (everything, -race).
GO ?= go
export GOTOOLCHAIN := local
PKGS := ./...

-include mk/*.mk

.PHONY: all build test unit lint fuzz bench run clean

all: lint test

build:
	$(GO) build -o bin/podwatch ./cmd/podwatch

# Every test, the real-apiserver ones included, with the race detector.
test: lint cluster-bins
	$(GO) test -race -count=1 -timeout 20m $(PKGS)

# The quick loop: no race detector, cached results allowed.
unit:
	$(GO) test $(PKGS)

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet $(PKGS)

# A short run of every fuzz target (FUZZTIME each).
FUZZTIME ?= 10s
fuzz:
	@for pkg in $$($(GO) list $(PKGS)); do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
	    echo "fuzz $$pkg $$f"; $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
	  done; \
	done

bench:
	$(GO) test -run '^$$' -bench . -benchmem $(PKGS)

clean:
	rm -rf bin
