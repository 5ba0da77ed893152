package watch

import (
	"bytes"
	"io"
	"os"
	"testing"

	"github.com/podwatch/podwatch/rest"
	"github.com/podwatch/podwatch/rest/api"
	"github.com/podwatch/podwatch/rest/cborwire"
	"github.com/podwatch/podwatch/rest/protowire"
)

const benchEvents = 2000

// decodeStream decodes every event of stream and returns how many there were.
func decodeStream[T any](b *testing.B, stream []byte, decode func([]byte) (T, error)) int {
	d := NewDecoder(bytes.NewReader(stream), decode, DecoderOptions{})
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

// BenchmarkScanFrames measures the frame scanner alone.
func BenchmarkScanFrames(b *testing.B) {
	stream := realPodStream(b, benchEvents)
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	for b.Loop() {
		d := NewDecoder(bytes.NewReader(stream), decodeTestObj, DecoderOptions{})
		n := 0
		for {
			_, _, err := d.frame()
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
		stream = protowire.AppendWatchFrame(stream, "MODIFIED", pb)
	}
	for _, tc := range []struct {
		name   string
		direct bool
	}{{"direct", true}, {"transcoded", false}} {
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(stream)))
			b.ReportAllocs()
			for b.Loop() {
				d := NewDecoder(bytes.NewReader(stream), api.DecodePod, DecoderOptions{ContentType: rest.ContentTypeProtobuf})
				if tc.direct {
					d.WithProtobuf(api.DecodePodProtobuf)
				}
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
		stream = cborwire.AppendEvent(stream, "MODIFIED", pod)
	}
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	for b.Loop() {
		d := NewDecoder(bytes.NewReader(stream), api.DecodePod, DecoderOptions{ContentType: rest.ContentTypeCBORSeq})
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
