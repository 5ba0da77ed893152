package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	goruntime "runtime"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/runtime/serializer/cbor"
	"k8s.io/apimachinery/pkg/runtime/serializer/streaming"
	"k8s.io/client-go/kubernetes/scheme"
	restclientwatch "k8s.io/client-go/rest/watch"
)

type decodeResult struct {
	Events         int     `json:"events"`
	EventsPerS     float64 `json:"events_per_s"`
	MBPerS         float64 `json:"mb_per_s"`
	AllocsPerEvent float64 `json:"allocs_per_event"`
	BytesPerEvent  float64 `json:"bytes_per_event"`
}

// codecs are client-go's with CBOR added, as a client built with the
// ClientsAllowCBOR feature has them: scheme.Codecs alone has no CBOR.
var codecs = serializer.NewCodecFactory(scheme.Scheme, serializer.WithSerializer(cbor.NewSerializerInfo))

// chain builds the decoder client-go's REST client puts under a watch of
// media type mediaType: the framer, the streaming decoder of WatchEvents and
// the object decoder into core/v1.
func chain(mediaType string, body io.ReadCloser) (*restclientwatch.Decoder, error) {
	info, ok := runtime.SerializerInfoForMediaType(codecs.SupportedMediaTypes(), mediaType)
	if !ok || info.StreamSerializer == nil {
		return nil, fmt.Errorf("no stream serializer for %s", mediaType)
	}
	objects := codecs.WithoutConversion().DecoderToVersion(info.Serializer, corev1.SchemeGroupVersion)
	frames := info.StreamSerializer.Framer.NewFrameReader(body)
	events := streaming.NewDecoder(frames, info.StreamSerializer.Serializer)
	return restclientwatch.NewDecoder(events, objects), nil
}

func decodeAll(mediaType string, data []byte) (int, error) {
	d, err := chain(mediaType, io.NopCloser(bytes.NewReader(data)))
	if err != nil {
		return 0, err
	}
	n := 0
	for {
		_, obj, err := d.Decode()
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return n, fmt.Errorf("event %d: %w", n+1, err)
		}
		if _, ok := obj.(*corev1.Pod); !ok {
			return n, fmt.Errorf("event %d: %T, want a Pod", n+1, obj)
		}
		n++
	}
}

// toStream re-encodes a JSON watch stream as the apiserver sends it to a
// client asking for mediaType, protobuf (length-delimited WatchEvents, each
// object in the protobuf envelope) or CBOR (a sequence of self-described
// items), written by client-go's own serializers.
func toStream(mediaType string, data []byte) ([]byte, error) {
	d, err := chain(runtime.ContentTypeJSON, io.NopCloser(bytes.NewReader(data)))
	if err != nil {
		return nil, err
	}
	info, _ := runtime.SerializerInfoForMediaType(codecs.SupportedMediaTypes(), mediaType)
	objects := codecs.EncoderForVersion(info.Serializer, corev1.SchemeGroupVersion)
	var out bytes.Buffer
	events := streaming.NewEncoder(info.StreamSerializer.Framer.NewFrameWriter(&out), info.StreamSerializer.Serializer)
	for {
		typ, obj, err := d.Decode()
		if errors.Is(err, io.EOF) {
			return out.Bytes(), nil
		}
		if err != nil {
			return nil, err
		}
		raw, err := runtime.Encode(objects, obj)
		if err != nil {
			return nil, err
		}
		if err := events.Encode(&metav1.WatchEvent{Type: string(typ), Object: runtime.RawExtension{Raw: raw}}); err != nil {
			return nil, err
		}
	}
}

// runStream writes the watch stream in mediaType of a JSON one, for both
// sides to decode the same bytes.
func runStream(name, mediaType string, args []string, stderr io.Writer) error {
	fs := newFlags(name, stderr)
	stream := fs.String("stream", "", "watch stream file (newline-delimited JSON events)")
	out := fs.String("out", "", "the watch stream `file` to write")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *stream == "" || *out == "" {
		fmt.Fprintf(stderr, "clientgo-bench %s: want --stream and --out\n", name)
		return errUsage
	}
	data, err := os.ReadFile(*stream)
	if err != nil {
		return err
	}
	b, err := toStream(mediaType, data)
	if err != nil {
		return fmt.Errorf("re-encode as %s: %w", mediaType, err)
	}
	return os.WriteFile(*out, b, 0o644)
}

func runDecode(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("decode", stderr)
	stream := fs.String("stream", "", "watch stream file, as the server sends it")
	repeat := fs.Int("repeat", 10, "timed passes")
	format := fs.String("content-type", "json", "the stream's `format`: json (newline-delimited events), protobuf (length-prefixed WatchEvents) or cbor (a sequence of CBOR items)")
	if err := parse(fs, args); err != nil {
		return err
	}
	mediaType := runtime.ContentTypeJSON
	switch *format {
	case "json":
	case "protobuf":
		// The kubelet's: its client asks for protobuf and client-go's REST
		// client decodes the watch with the protobuf stream serializer.
		mediaType = runtime.ContentTypeProtobuf
	case "cbor":
		// client-go's CBOR stream decoder, as a client with
		// ClientsAllowCBOR reads an application/cbor-seq watch.
		mediaType = runtime.ContentTypeCBOR
	default:
		fmt.Fprintf(stderr, "clientgo-bench decode: --content-type %q: want json, protobuf or cbor\n", *format)
		return errUsage
	}
	data, err := os.ReadFile(*stream)
	if err != nil {
		return err
	}
	events, err := decodeAll(mediaType, data) // the warm-up pass
	if err != nil {
		return err
	}
	var before, after goruntime.MemStats
	goruntime.GC()
	goruntime.ReadMemStats(&before)
	start := time.Now()
	for i := 0; i < *repeat; i++ {
		if _, err := decodeAll(mediaType, data); err != nil {
			return err
		}
	}
	elapsed := time.Since(start).Seconds()
	goruntime.ReadMemStats(&after)
	n := float64(events * *repeat)
	return printJSON(stdout, decodeResult{Events: events, EventsPerS: n / elapsed,
		MBPerS:         float64(len(data)) * float64(*repeat) / elapsed / (1 << 20),
		AllocsPerEvent: float64(after.Mallocs-before.Mallocs) / n,
		BytesPerEvent:  float64(after.TotalAlloc-before.TotalAlloc) / n})
}
