package protowire

import (
	"errors"
	"testing"
)

func TestItems(t *testing.T) {
	list, _ := Root("PodList")
	items, _, _ := list.Field("items")
	meta, _, _ := list.Field("metadata")
	pod := bytesField(1, bytesField(1, []byte("web")))
	raw := cat(bytesField(int(meta), nil), bytesField(int(items), pod), bytesField(int(items), pod), bytesField(int(items), nil))
	u, err := ParseEnvelope(envelope("v1", "PodList", raw), 0)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := Items(u); err != nil || n != 3 {
		t.Fatalf("got %d items, %v; want 3", n, err)
	}

	u.Kind = "ConfigMapList"
	var ke *KindError
	if _, err := Items(u); !errors.As(err, &ke) {
		t.Fatalf("a kind without a schema: got %v, want a *KindError", err)
	}
	u.Kind, u.Raw = "PodList", raw[:len(raw)-1]
	var se *SyntaxError
	if _, err := Items(u); !errors.As(err, &se) {
		t.Fatalf("a list cut short: got %v, want a *SyntaxError", err)
	}
}
