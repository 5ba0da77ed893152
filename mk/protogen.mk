# protogen.mk: internal/protogen, a module of its own that derives the
# protobuf schema (rest/protowire/schema_gen.go) from the Kubernetes Go
# types. make test checks the checked-in schema is what it generates; make
# protogen regenerates it.

.PHONY: test-protogen protogen
test-protogen:
	cd internal/protogen && $(GO) vet ./... && $(GO) test -count=1 ./...

protogen:
	cd internal/protogen && $(GO) run ./cmd/protogen -out ../../rest/protowire/schema_gen.go

test: test-protogen
