package apiwire

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/podwatch/podwatch/rest/wire"
)

// discard is a ResponseWriter that keeps nothing.
type discard struct{ h http.Header }

func (d *discard) Header() http.Header         { return d.h }
func (d *discard) Write(b []byte) (int, error) { return len(b), nil }
func (d *discard) WriteHeader(int)             {}

// BenchmarkRespondWatch measures what answering a protobuf client costs a
// server: the recorded 15 KB pod's watch event, written in 64 KB pieces as
// the bench server writes, turned into frames.
func BenchmarkRespondWatch(b *testing.B) {
	pod, err := os.ReadFile("../../testdata/pod.json")
	if err != nil {
		b.Fatal(err)
	}
	ev := Event(Modified, bytes.TrimSpace(pod))
	body := bytes.Repeat(ev, 64)
	req := httptest.NewRequest(http.MethodGet, "/api/v1/pods?watch=1", nil)
	req.Header.Set("Accept", wire.ContentTypeProtobuf)
	b.SetBytes(int64(len(ev)))
	b.ReportAllocs()
	for b.Loop() {
		w, _ := Respond(&discard{h: http.Header{"Content-Type": {wire.ContentTypeJSON}}}, req)
		for i := 0; i < len(body); i += 64 << 10 {
			w.Write(body[i:min(i+64<<10, len(body))])
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*64), "ns/event")
}
