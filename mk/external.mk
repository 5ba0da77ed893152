# external.mk: testdata/external, a module of its own that uses podwatch as a
# library from outside (the README's example, a decoder of another kind). It
# compiles only against podwatch's public packages, so its tests fail when the
# public API needs an internal one. The main Makefile includes this file, and
# make test runs it.

.PHONY: test-external
test-external:
	cd testdata/external && $(GO) vet ./... && $(GO) test -count=1 ./...

test: test-external
