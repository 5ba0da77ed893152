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

// chain builds the decoder client-go's REST client puts under a watch of
// media type mediaType: the framer, the streaming decoder of WatchEvents and
// the object decoder into core/v1.
func chain(mediaType string, body io.ReadCloser) (*restclientwatch.Decoder, error) {
	info, ok := runtime.SerializerInfoForMediaType(scheme.Codecs.SupportedMediaTypes(), mediaType)
	if !ok || info.StreamSerializer == nil {
		return nil, fmt.Errorf("no stream serializer for %s", mediaType)
	}
	objects := scheme.Codecs.WithoutConversion().DecoderToVersion(info.Serializer, corev1.SchemeGroupVersion)
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

// toProtobuf re-encodes a JSON watch stream as the apiserver sends it to a
// client asking for protobuf: length-delimited WatchEvents, each object in
// the protobuf envelope.
func toProtobuf(data []byte) ([]byte, error) {
	d, err := chain(runtime.ContentTypeJSON, io.NopCloser(bytes.NewReader(data)))
	if err != nil {
		return nil, err
	}
	info, _ := runtime.SerializerInfoForMediaType(scheme.Codecs.SupportedMediaTypes(), runtime.ContentTypeProtobuf)
	objects := scheme.Codecs.EncoderForVersion(info.Serializer, corev1.SchemeGroupVersion)
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

func runDecode(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("decode", stderr)
	stream := fs.String("stream", "", "watch stream file (newline-delimited JSON events)")
	repeat := fs.Int("repeat", 10, "timed passes")
	protobuf := fs.Bool("protobuf", false, "re-encode the stream as protobuf first and decode that")
	if err := parse(fs, args); err != nil {
		return err
	}
	data, err := os.ReadFile(*stream)
	if err != nil {
		return err
	}
	mediaType := runtime.ContentTypeJSON
	if *protobuf {
		if data, err = toProtobuf(data); err != nil {
			return fmt.Errorf("re-encode as protobuf: %w", err)
		}
		mediaType = runtime.ContentTypeProtobuf
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
