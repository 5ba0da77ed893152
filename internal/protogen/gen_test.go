package protogen

import (
	"bytes"
	"os"
	"testing"
)

// TestCheckedInSchemaIsGenerated fails when rest/protowire/schema_gen.go
// is not what the generator writes from the Kubernetes types: regenerate it
// with make protogen.
func TestCheckedInSchemaIsGenerated(t *testing.T) {
	want, err := Generate()
	if err != nil {
		t.Fatalf("generate: %v", err)
	}
	got, err := os.ReadFile("../../rest/protowire/schema_gen.go")
	if err != nil {
		t.Fatalf("read the checked-in schema: %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("rest/protowire/schema_gen.go is stale: run make protogen")
	}
}
