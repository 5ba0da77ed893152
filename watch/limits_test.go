package watch

import (
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"
)

// generated is a reader of head, then body repeated until size bytes in all,
// never held in memory.
type generated struct {
	head, body []byte
	size, read int64
	at         int
}

func (g *generated) Read(p []byte) (int, error) {
	if g.read >= g.size {
		return 0, io.EOF
	}
	if left := g.size - g.read; int64(len(p)) > left {
		p = p[:left]
	}
	n := 0
	if g.read < int64(len(g.head)) {
		n = copy(p, g.head[g.read:])
	}
	for n < len(p) {
		c := copy(p[n:], g.body[g.at:])
		g.at = (g.at + c) % len(g.body)
		n += c
	}
	g.read += int64(n)
	return n, nil
}

func allocated(f func()) uint64 {
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// A 4 GiB watch frame, after one good event, ends with a *FrameTooLargeError
// at the frame's offset once it passes the limit, having read and allocated a
// small multiple of the limit, not the frame.
func TestLimitHugeFrame(t *testing.T) {
	first := event(Added, `{"metadata":{"name":"a","resourceVersion":"1"}}`) + "\n"
	for _, tc := range []struct {
		name  string
		opts  DecoderOptions
		limit int
	}{
		{"default limit", DecoderOptions{}, DefaultMaxFrameSize},
		{"set limit", DecoderOptions{MaxFrameSize: 1 << 20}, 1 << 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := &generated{
				head: []byte(first + `{"type":"ADDED","object":{"metadata":{"name":"`),
				body: []byte(strings.Repeat("x", 4096)), size: 4 << 30,
			}
			d := NewDecoder(in, testCodec, tc.opts)
			var err error
			heap := allocated(func() {
				if ev, e := d.Decode(); e != nil || ev.Type != Added {
					t.Fatalf("first event: %v, %v", ev.Type, e)
				}
				_, err = d.Decode()
			})
			var e *FrameTooLargeError
			if !errors.As(err, &e) || e.Offset != int64(len(first)) || e.Limit != tc.limit {
				t.Fatalf("got %v, want a *FrameTooLargeError at byte %d, limit %d", err, len(first), tc.limit)
			}
			if in.read > 2*int64(tc.limit)+1<<20 {
				t.Fatalf("read %d bytes of a 4 GiB frame, want at most twice the limit %d", in.read, tc.limit)
			}
			if max := uint64(4*tc.limit + 8<<20); heap > max {
				t.Fatalf("allocated %d bytes, want at most %d", heap, max)
			}
			if _, again := d.Decode(); !errors.As(again, &e) {
				t.Fatalf("Decode after the error: %v, want the same error", again)
			}
		})
	}
}

// dripReader hands out its data one byte per Read, pausing every between
// reads: a server that drips.
type dripReader struct {
	data  []byte
	every time.Duration
	reads int
}

func (r *dripReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	if r.reads > 0 {
		time.Sleep(r.every)
	}
	r.reads++
	p[0] = r.data[0]
	r.data = r.data[1:]
	return 1, nil
}

// Events dripped a byte at a time decode as if they came at once, without
// allocating per byte.
func TestLimitDrippedEvents(t *testing.T) {
	var in strings.Builder
	for _, name := range []string{"a", "b", "c"} {
		in.WriteString(event(Modified, `{"metadata":{"name":"`+name+`","resourceVersion":"2"},"spec":{"x":"`+strings.Repeat("y", 500)+`"}}`) + "\n")
	}
	r := &dripReader{data: []byte(in.String())}
	d := NewDecoder(r, testCodec, DecoderOptions{})
	var names []string
	heap := allocated(func() {
		for {
			ev, err := d.Decode()
			if err == io.EOF {
				return
			}
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			names = append(names, ev.Object.Name)
		}
	})
	if strings.Join(names, ",") != "a,b,c" {
		t.Fatalf("got events %v, want a, b, c", names)
	}
	if r.reads != in.Len() {
		t.Fatalf("%d reads, want one per byte (%d)", r.reads, in.Len())
	}
	if perByte := heap / uint64(in.Len()); perByte > 64 {
		t.Fatalf("allocated %d bytes for %d dripped bytes: %d per byte", heap, in.Len(), perByte)
	}
}
