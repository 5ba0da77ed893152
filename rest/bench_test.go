package rest_test

import (
	"bytes"
	"testing"

	"github.com/podwatch/podwatch/rest"
	"github.com/podwatch/podwatch/rest/api"
	"github.com/podwatch/podwatch/rest/meta"
	"github.com/podwatch/podwatch/rest/wire"
)

// BenchmarkDecodeList decodes a list of 1000 copies of a real 15 KB pod: framing
// alone, framing plus metadata, and the real pod decoder.
func BenchmarkDecodeList(b *testing.B) {
	in := podList(realPod(b), 1000, "268")
	b.Run("frame", func(b *testing.B) {
		benchDecodeList(b, in, jsonCodec(func([]byte) (struct{}, error) { return struct{}{}, nil }))
	})
	b.Run("metadata", func(b *testing.B) { benchDecodeList(b, in, testCodec) })
	b.Run("api.Codec", func(b *testing.B) { benchDecodeList(b, in, api.Codec) })
}

func benchDecodeList[T any](b *testing.B, in []byte, codec meta.Codec[T]) {
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		l, err := rest.DecodeList(bytes.NewReader(in), wire.JSON, codec, rest.ListLimits{})
		if err != nil {
			b.Fatal(err)
		}
		if len(l.Items) != 1000 {
			b.Fatalf("got %d items, want 1000", len(l.Items))
		}
	}
}
