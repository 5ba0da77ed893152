package tracetest

import (
	"testing"

	"github.com/podwatch/podwatch/internal/protoenc"
	"github.com/podwatch/podwatch/rest/protowire"
)

// Field is the number of kind's field with JSON name path[0], or of the
// field path[1] of that one's message, and so on: the tests build their
// messages from the schema rather than from numbers of their own.
func Field(t testing.TB, kind string, path ...string) int {
	t.Helper()
	m, ok := protowire.Root(kind)
	if !ok {
		t.Fatalf("no schema for %s", kind)
	}
	var num int32
	for _, name := range path {
		if num, m, ok = m.Field(name); !ok {
			t.Fatalf("%s has no field %v", kind, path)
		}
	}
	return int(num)
}

// PBMeta is an ObjectMeta message: name, namespace "shop", resourceVersion,
// and a deletionTimestamp and annotations when given.
func PBMeta(t testing.TB, name, rv string, deleting bool, annotations map[string]string) []byte {
	var b []byte
	if name != "" {
		b = protoenc.AppendBytesField(b, Field(t, "Pod", "metadata", "name"), []byte(name))
		b = protoenc.AppendBytesField(b, Field(t, "Pod", "metadata", "namespace"), []byte("shop"))
	}
	b = protoenc.AppendBytesField(b, Field(t, "Pod", "metadata", "resourceVersion"), []byte(rv))
	if deleting {
		b = protoenc.AppendBytesField(b, Field(t, "Pod", "metadata", "deletionTimestamp"), protoenc.AppendVarintField(nil, 1, 1796244129))
	}
	for k, v := range annotations {
		entry := protoenc.AppendBytesField(protoenc.AppendBytesField(nil, 1, []byte(k)), 2, []byte(v))
		b = protoenc.AppendBytesField(b, Field(t, "Pod", "metadata", "annotations"), entry)
	}
	return b
}

// PBPod is a Pod message holding only PBMeta's metadata.
func PBPod(t testing.TB, name, rv string, deleting bool, annotations map[string]string) []byte {
	return protoenc.AppendBytesField(nil, Field(t, "Pod", "metadata"), PBMeta(t, name, rv, deleting, annotations))
}

// PBStatus is a failed Status message.
func PBStatus(t testing.TB, code int, reason, message string) []byte {
	var b []byte
	b = protoenc.AppendBytesField(b, Field(t, "Status", "status"), []byte("Failure"))
	b = protoenc.AppendBytesField(b, Field(t, "Status", "message"), []byte(message))
	b = protoenc.AppendBytesField(b, Field(t, "Status", "reason"), []byte(reason))
	return protoenc.AppendVarintField(b, Field(t, "Status", "code"), uint64(code))
}

// PBList is a PodList envelope of pods at rv.
func PBList(t testing.TB, rv string, pods ...[]byte) []byte {
	lm := protoenc.AppendBytesField(nil, Field(t, "PodList", "metadata", "resourceVersion"), []byte(rv))
	raw := protoenc.AppendBytesField(nil, Field(t, "PodList", "metadata"), lm)
	for _, p := range pods {
		raw = protoenc.AppendBytesField(raw, Field(t, "PodList", "items"), p)
	}
	return protoenc.AppendEnvelope(nil, "v1", "PodList", raw)
}

// PBFrame is one watch frame, its object an envelope of kind.
func PBFrame(typ, kind string, raw []byte) []byte {
	return protoenc.AppendWatchFrame(nil, typ, protoenc.AppendEnvelope(nil, "v1", kind, raw))
}
