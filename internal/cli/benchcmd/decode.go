package benchcmd

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"time"

	"github.com/podwatch/podwatch/internal/cli/base"
	"github.com/podwatch/podwatch/rest/api"
	"github.com/podwatch/podwatch/rest/wire"
	"github.com/podwatch/podwatch/watch"
)

// DecodeResult is the line bench decode prints, in JSON.
type DecodeResult struct {
	Events         int     `json:"events"`
	EventsPerS     float64 `json:"events_per_s"`
	MBPerS         float64 `json:"mb_per_s"`
	AllocsPerEvent float64 `json:"allocs_per_event"`
	BytesPerEvent  float64 `json:"bytes_per_event"`
}

// decodeStream decodes every event of data, in format, once; it returns
// how many. A protobuf stream's pods are read straight from the wire, as
// the api source reads them.
func decodeStream(data []byte, format wire.Format) (int, error) {
	d := watch.NewDecoder(io.NopCloser(bytes.NewReader(data)), api.Codec, watch.DecoderOptions{Format: format})
	n := 0
	for {
		ev, err := d.Decode()
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return n, fmt.Errorf("event %d: %w", n+1, err)
		}
		if ev.Object == nil {
			return n, fmt.Errorf("event %d: no object", n+1)
		}
		n++
	}
}

func benchDecode(e base.Env, args []string) error {
	c := base.NewCommand("bench decode", benchUsage)
	stream := c.Flags.String("stream", "", "a watch stream `file`, as the server sends it: newline-delimited JSON events, length-prefixed protobuf frames, or a sequence of CBOR items")
	repeat := c.Flags.Int("repeat", 10, "timed passes over the stream")
	format := c.Flags.String("content-type", "json", "the stream's `format`: json, protobuf or cbor")
	if _, err := c.Parse(e.Stdout, args); err != nil {
		return err
	}
	if *stream == "" || *repeat <= 0 {
		return base.Usagef(c.Name, "want --stream FILE and --repeat > 0")
	}
	wf, ok := wire.ParseName(*format)
	if !ok {
		return base.Usagef(c.Name, "--content-type %q: want json, protobuf or cbor", *format)
	}
	data, err := os.ReadFile(*stream)
	if err != nil {
		return fmt.Errorf("bench decode: %w", err)
	}
	events, err := decodeStream(data, wf) // the warm-up pass
	if err != nil {
		return fmt.Errorf("bench decode %s: %w", *stream, err)
	}
	if events == 0 {
		return fmt.Errorf("bench decode %s: no events", *stream)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	for i := 0; i < *repeat; i++ {
		if _, err := decodeStream(data, wf); err != nil {
			return err
		}
	}
	elapsed := time.Since(start).Seconds()
	runtime.ReadMemStats(&after)
	n := float64(events * *repeat)
	return printJSON(e.Stdout, DecodeResult{
		Events:         events,
		EventsPerS:     n / elapsed,
		MBPerS:         float64(len(data)) * float64(*repeat) / elapsed / (1 << 20),
		AllocsPerEvent: float64(after.Mallocs-before.Mallocs) / n,
		BytesPerEvent:  float64(after.TotalAlloc-before.TotalAlloc) / n,
	})
}
