package watch

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"runtime"
	"testing"

	"github.com/podwatch/podwatch/internal/apiwire"
	"github.com/podwatch/podwatch/internal/benchserver"
	"github.com/podwatch/podwatch/internal/cborenc"
	"github.com/podwatch/podwatch/internal/protoenc"
	"github.com/podwatch/podwatch/internal/stream"
	"github.com/podwatch/podwatch/rest/api"
	"github.com/podwatch/podwatch/rest/wire"
)

const benchEvents = 2000

// decodeStream decodes every event of stream and returns how many there were.
func decodeStream[T any](b *testing.B, stream []byte, decode func([]byte) (T, error)) int {
	d := NewDecoder(bytes.NewReader(stream), jsonCodec(decode), DecoderOptions{})
	n := 0
	for {
		_, err := d.Decode()
		if err == io.EOF {
			return n
		}
		if err != nil {
			b.Fatalf("Decode: %v", err)
		}
		n++
	}
}

func reportEvents(b *testing.B, perOp int) {
	b.ReportMetric(float64(perOp)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// benchStream is the stream `make bench` decodes: 2,000 MODIFIED events going
// round 110 copies of the recorded pod, written by the synthetic server.
func benchStream(b *testing.B) []byte {
	b.Helper()
	pods, err := benchserver.NewPods([]byte(readRealPod(b)), 110, "node-1", benchserver.PodsOptions{})
	if err != nil {
		b.Fatal(err)
	}
	var stream []byte
	for k := range benchEvents {
		stream = pods.Event(stream, apiwire.Modified, pods.EventPod(k), pods.EventRV(k))
	}
	return stream
}

// BenchmarkDecodeBenchStream decodes `make bench`'s JSON stream into
// api.Pods, beside encoding/json.Valid over each of its events in the same
// run: a yardstick that moves with the machine's load as the decoder does.
// Valid keeps nothing and allocates nothing; the decoder frames, reads the
// envelope and keeps a lossless pod, so the ratio of their MB/s says how near
// the decoder runs to a bare validating scan.
func BenchmarkDecodeBenchStream(b *testing.B) {
	stream := benchStream(b)
	b.Run("podwatch", func(b *testing.B) {
		b.SetBytes(int64(len(stream)))
		b.ReportAllocs()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for b.Loop() {
			if n := decodeStream(b, stream, api.DecodePod); n != benchEvents {
				b.Fatalf("decoded %d events, want %d", n, benchEvents)
			}
		}
		runtime.ReadMemStats(&after)
		reportEvents(b, benchEvents)
		b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(b.N*benchEvents), "allocs/event")
	})
	b.Run("json.Valid", func(b *testing.B) {
		events := bytes.SplitAfter(stream, []byte("\n"))
		if len(events[len(events)-1]) == 0 {
			events = events[:len(events)-1]
		}
		if len(events) != benchEvents {
			b.Fatalf("split %d events, want %d", len(events), benchEvents)
		}
		b.SetBytes(int64(len(stream)))
		b.ReportAllocs()
		for b.Loop() {
			for _, e := range events {
				if !json.Valid(e) {
					b.Fatalf("event is not valid JSON: %.80s", e)
				}
			}
		}
		reportEvents(b, benchEvents)
	})
}

// BenchmarkDecodeWatchStream decodes a stream of real pods into api.Pods.
func BenchmarkDecodeWatchStream(b *testing.B) {
	stream := realPodStream(b, benchEvents)
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	for b.Loop() {
		if n := decodeStream(b, stream, api.DecodePod); n != benchEvents {
			b.Fatalf("decoded %d events, want %d", n, benchEvents)
		}
	}
	reportEvents(b, benchEvents)
}

// BenchmarkDecodeWatchStreamEnvelope measures the Decoder's own share: framing
// and the envelope, with a DecodeFunc that does nothing.
func BenchmarkDecodeWatchStreamEnvelope(b *testing.B) {
	stream := realPodStream(b, benchEvents)
	nop := func([]byte) (struct{}, error) { return struct{}{}, nil }
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	for b.Loop() {
		if n := decodeStream(b, stream, nop); n != benchEvents {
			b.Fatalf("decoded %d events, want %d", n, benchEvents)
		}
	}
	reportEvents(b, benchEvents)
}

// BenchmarkScanFrames measures the frame scanner alone: the JSON events'
// framer on the shared reader, as the Decoder frames with them.
func BenchmarkScanFrames(b *testing.B) {
	data := realPodStream(b, benchEvents)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		in := stream.NewReader(bytes.NewReader(data), DefaultMaxFrameSize)
		events := wire.JSON.Events(DefaultMaxFrameSize)
		n := 0
		for {
			_, _, err := in.Next(events)
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatalf("frame: %v", err)
			}
			n++
		}
		if n != benchEvents {
			b.Fatalf("framed %d events, want %d", n, benchEvents)
		}
	}
	reportEvents(b, benchEvents)
}

// BenchmarkDecodeProtobufWatchStream decodes a protobuf stream of the real
// pod (recorded from the apiserver in protobuf) into api.Pods: framing, the
// envelope and the pod, read straight from the wire ("direct"), or
// transcoded to JSON for the JSON decoder ("transcoded").
func BenchmarkDecodeProtobufWatchStream(b *testing.B) {
	pb, err := os.ReadFile("../rest/protowire/testdata/pod.pb")
	if err != nil {
		b.Fatal(err)
	}
	var stream []byte
	for range benchEvents {
		stream = protoenc.AppendWatchFrame(stream, "MODIFIED", pb)
	}
	for _, tc := range []struct {
		name   string
		direct bool
	}{{"direct", true}, {"transcoded", false}} {
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(stream)))
			b.ReportAllocs()
			for b.Loop() {
				codec := jsonCodec(api.DecodePod) // every pod transcoded to JSON first
				if tc.direct {
					codec = api.Codec
				}
				d := NewDecoder(bytes.NewReader(stream), codec, DecoderOptions{Format: wire.Protobuf})
				n := 0
				for {
					_, err := d.Decode()
					if err == io.EOF {
						break
					}
					if err != nil {
						b.Fatalf("Decode: %v", err)
					}
					n++
				}
				if n != benchEvents {
					b.Fatalf("decoded %d events, want %d", n, benchEvents)
				}
			}
			reportEvents(b, benchEvents)
		})
	}
}

// BenchmarkDecodeCBORWatchStream decodes a CBOR stream of the real pod
// (recorded from the apiserver in CBOR) into api.Pods: framing, the
// transcoding to JSON and the JSON decoder, beside
// BenchmarkDecodeWatchStream's JSON.
func BenchmarkDecodeCBORWatchStream(b *testing.B) {
	pod, err := os.ReadFile("../rest/cborwire/testdata/pod.cbor")
	if err != nil {
		b.Fatal(err)
	}
	var stream []byte
	for range benchEvents {
		stream = cborenc.AppendEvent(stream, "MODIFIED", pod)
	}
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	for b.Loop() {
		d := NewDecoder(bytes.NewReader(stream), api.Codec, DecoderOptions{Format: wire.CBOR})
		n := 0
		for {
			_, err := d.Decode()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatalf("Decode: %v", err)
			}
			n++
		}
		if n != benchEvents {
			b.Fatalf("decoded %d events, want %d", n, benchEvents)
		}
	}
	reportEvents(b, benchEvents)
}
