package benchserver

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/podwatch/podwatch/internal/apiwire"
	"github.com/podwatch/podwatch/internal/protoenc"
	"github.com/podwatch/podwatch/rest/protowire"
	"github.com/podwatch/podwatch/rest/wire"
)

// The copies in protobuf, fast. Encoding each copy's JSON to protobuf as it
// is served costs far more than a client spends decoding it, so the server,
// not the client, would set the pace. Instead each copy is assembled from a
// pre-encoded Pod message, a shape, in which only the holes' bytes change.
//
// A protobuf message nests length-prefixed fields, so where a hole's value
// changes length, every length around it changes too. A shape therefore
// holds for one length of each hole's value (the resourceVersion's digits,
// the pod IP's, ...): copies whose values have the same lengths share it,
// and it is encoded on first use, through the one JSON to protobuf encoder
// (protoenc.Encoder), so that every byte is what the apiserver sends.

// shape is the Pod message of every copy whose hole values have one set of
// lengths, with the places each hole's value goes.
type shape struct {
	msg   []byte
	holes [][]int // holes[k]: offsets in msg of hole k's value
}

// protoOnce makes a Pods' protobuf state on first use.
type protoOnce struct {
	once sync.Once
	pods *protoPods
	err  error
}

// protoPods builds and keeps the shapes of one Pods.
type protoPods struct {
	p *Pods
	// seconds[k] marks a time hole the Pod message holds as a Time (its
	// seconds), not as text (an annotation that happens to hold a time).
	seconds []bool

	mu     sync.Mutex
	enc    protoenc.Encoder
	shapes map[string]*shape // by the lengths of the holes' values
}

func (p *Pods) protobuf() (*protoPods, error) {
	p.proto.once.Do(func() {
		pp := &protoPods{p: p, enc: protoenc.New(), shapes: map[string]*shape{}, seconds: make([]bool, len(p.holes))}
		p.proto.pods, p.proto.err = pp, pp.findSeconds()
	})
	return p.proto.pods, p.proto.err
}

// findSeconds tells the time holes held as Time from those held as text: a
// time written as text is found, as the JSON wrote it, in the message.
func (pp *protoPods) findSeconds() error {
	const marker = "1999-09-09T09:09:09Z"
	for k, h := range pp.p.holes {
		if !h.time {
			continue
		}
		doc := pp.p.appendWith(nil, func(buf []byte, j int) []byte {
			if j == k {
				return append(buf, marker...)
			}
			return pp.p.holes[j].text(buf, 0, 1)
		})
		msg, err := pp.enc.Message(nil, "Pod", doc)
		if err != nil {
			return fmt.Errorf("benchserver: encode the pod in protobuf: %w", err)
		}
		pp.seconds[k] = !bytes.Contains(msg, []byte(marker))
	}
	return nil
}

// values are copy i's hole values at rv as protobuf holds them (a time as
// its seconds' varint), in one buffer: value k is buf[ends[k-1]:ends[k]].
type values struct {
	buf  []byte
	ends []int
	key  []byte // the values' lengths, a shape's key
}

func (v *values) set(pp *protoPods, i int, rv int64) {
	v.buf, v.ends, v.key = v.buf[:0], v.ends[:0], v.key[:0]
	for k, h := range pp.p.holes {
		start := len(v.buf)
		if pp.seconds[k] {
			v.buf = protoenc.AppendVarint(v.buf, uint64(h.base+int64(i)))
		} else {
			v.buf = h.text(v.buf, i, rv)
		}
		v.ends = append(v.ends, len(v.buf))
		v.key = binary.AppendUvarint(v.key, uint64(len(v.buf)-start))
	}
}

func (v *values) value(k int) []byte {
	start := 0
	if k > 0 {
		start = v.ends[k-1]
	}
	return v.buf[start:v.ends[k]]
}

// appendPod appends the Pod message of the copy whose values v holds.
func (pp *protoPods) appendPod(b []byte, v *values) ([]byte, error) {
	sh, err := pp.shape(v)
	if err != nil {
		return b, err
	}
	start := len(b)
	b = append(b, sh.msg...)
	for k, offs := range sh.holes {
		val := v.value(k)
		for _, off := range offs {
			copy(b[start+off:], val)
		}
	}
	return b, nil
}

// podSize is the length of the Pod message appendPod appends for v.
func (pp *protoPods) podSize(v *values) (int, error) {
	sh, err := pp.shape(v)
	if err != nil {
		return 0, err
	}
	return len(sh.msg), nil
}

func (pp *protoPods) shape(v *values) (*shape, error) {
	pp.mu.Lock()
	defer pp.mu.Unlock()
	if sh, ok := pp.shapes[string(v.key)]; ok {
		return sh, nil
	}
	sh, err := pp.newShape(v)
	if err != nil {
		return nil, err
	}
	pp.shapes[string(v.key)] = sh
	return sh, nil
}

// newShape encodes the shape of v's lengths. It finds where hole k's value
// lands by encoding the template twice: once with every hole holding a
// probe value of its length, once with hole k alone holding another whose
// every byte differs; the bytes that differ are hole k's places.
func (pp *protoPods) newShape(v *values) (*shape, error) {
	p := pp.p
	lens := make([]int, len(p.holes))
	for k := range lens {
		lens[k] = len(v.value(k))
	}
	encode := func(changed int) ([]byte, error) {
		doc := p.appendWith(nil, func(buf []byte, k int) []byte {
			return probe(buf, pp.seconds[k], lens[k], k == changed)
		})
		msg, err := pp.enc.Message(nil, "Pod", doc)
		if err != nil {
			return nil, fmt.Errorf("benchserver: encode the pod in protobuf: %w", err)
		}
		return msg, nil
	}
	base, err := encode(-1)
	if err != nil {
		return nil, err
	}
	sh := &shape{msg: base, holes: make([][]int, len(p.holes))}
	for k := range p.holes {
		other, err := encode(k)
		if err != nil {
			return nil, err
		}
		if sh.holes[k], err = places(base, other, lens[k]); err != nil {
			return nil, fmt.Errorf("benchserver: hole %d of the protobuf pod: %w", k, err)
		}
	}
	return sh, nil
}

// probe appends the JSON of a probe value for a hole whose protobuf form is
// n bytes long: all "a" (or all "b" when changed) for text; for a time held
// as seconds, the one whose varint has n bytes each holding 1 (or 2).
func probe(buf []byte, seconds bool, n int, changed bool) []byte {
	digit := int64(1)
	if changed {
		digit = 2
	}
	if !seconds {
		return append(buf, strings.Repeat(string(rune('a'+digit-1)), n)...)
	}
	var secs int64
	for g := range n {
		secs |= digit << (7 * g)
	}
	return time.Unix(secs, 0).UTC().AppendFormat(buf, time.RFC3339)
}

// places returns the offsets of the runs of n bytes in which a and b differ.
func places(a, b []byte, n int) ([]int, error) {
	if len(a) != len(b) {
		return nil, fmt.Errorf("probes of one length encode to %d and %d bytes", len(a), len(b))
	}
	var offs []int
	for i := 0; i < len(a); {
		if a[i] == b[i] {
			i++
			continue
		}
		run := i
		for i < len(a) && a[i] != b[i] {
			i++
		}
		if n == 0 || (i-run)%n != 0 {
			return nil, fmt.Errorf("a value of %d bytes changes a run of %d at byte %d", n, i-run, run)
		}
		for ; run < i; run += n {
			offs = append(offs, run)
		}
	}
	if n > 0 && len(offs) == 0 {
		return nil, fmt.Errorf("a value of %d bytes is nowhere in the message", n)
	}
	return offs, nil
}

// envelopeTypeMeta is a Pod envelope's typeMeta field: apiVersion v1, kind Pod.
var envelopeTypeMeta = protoenc.AppendBytesField(nil, 1, envelopeTypeMetaOf("v1", "Pod"))

// appendFrame appends a watch frame of type typ holding the copy whose
// values v holds, as protoenc.AppendWatchFrame would, without building the
// envelope apart: the sizes are known from the shape.
func (pp *protoPods) appendFrame(b []byte, typ string, v *values) ([]byte, error) {
	msg, err := pp.podSize(v)
	if err != nil {
		return b, err
	}
	env := len(protowire.Magic) + len(envelopeTypeMeta) + 1 + varintSize(msg) + msg + 4
	ext := 1 + varintSize(env) + env
	ev := 1 + varintSize(len(typ)) + len(typ) + 1 + varintSize(ext) + ext
	b = binary.BigEndian.AppendUint32(b, uint32(ev))
	b = append(b, 1<<3|2)
	b = protoenc.AppendVarint(b, uint64(len(typ)))
	b = append(b, typ...)
	b = append(b, 2<<3|2)
	b = protoenc.AppendVarint(b, uint64(ext))
	b = append(b, 1<<3|2)
	b = protoenc.AppendVarint(b, uint64(env))
	b = append(b, protowire.Magic...)
	b = append(b, envelopeTypeMeta...)
	b = append(b, 2<<3|2)
	b = protoenc.AppendVarint(b, uint64(msg))
	if b, err = pp.appendPod(b, v); err != nil {
		return b, err
	}
	return append(b, 3<<3|2, 0, 4<<3|2, 0), nil
}

// appendListItem appends one item of a PodList message: field 2 holding the
// copy whose values v holds.
func (pp *protoPods) appendListItem(b []byte, v *values) ([]byte, error) {
	msg, err := pp.podSize(v)
	if err != nil {
		return b, err
	}
	b = append(b, 2<<3|2)
	b = protoenc.AppendVarint(b, uint64(msg))
	return pp.appendPod(b, v)
}

func varintSize(n int) int {
	var scratch [binary.MaxVarintLen64]byte
	return len(binary.AppendUvarint(scratch[:0], uint64(n)))
}

// encodeJSON is the protobuf of a small JSON document the server writes
// rarely (a list's metadata, a bookmark), through the one encoder.
func (pp *protoPods) encodeJSON(f func(enc protoenc.Encoder) ([]byte, error)) ([]byte, error) {
	pp.mu.Lock()
	defer pp.mu.Unlock()
	return f(pp.enc)
}

// WarmProtobuf encodes every shape the copies and the events will need,
// which the first protobuf client would otherwise wait for.
func (s *Server) WarmProtobuf() error {
	pp, err := s.Pods.protobuf()
	if err != nil {
		return err
	}
	var v values
	for i := range s.Pods.N {
		v.set(pp, i, int64(i+1))
		if _, err := pp.shape(&v); err != nil {
			return err
		}
	}
	for k := range s.M {
		v.set(pp, s.Pods.EventPod(k), s.Pods.EventRV(k))
		if _, err := pp.shape(&v); err != nil {
			return err
		}
	}
	return nil
}

// serveProtobuf answers a request refuse accepts in protobuf, as the
// apiserver answers the kubelet.
func (s *Server) serveProtobuf(w http.ResponseWriter, r *http.Request) {
	pp, err := s.Pods.protobuf()
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	q := r.URL.Query()
	stream := isWatch(q)
	if !stream {
		// A page is one envelope whose length comes first: made whole,
		// then written.
		page := pages.Get().(*[]byte)
		defer pages.Put(page)
		body, err := s.listProtobuf(*page, pp, q.Get("limit"), q.Get("continue"))
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		*page = body
		w.Header().Set("Content-Type", wire.Protobuf.ContentType())
		w.Write(body)
		return
	}
	w.Header().Set("Content-Type", wire.Protobuf.WatchContentType())
	bw := bufio.NewWriterSize(w, 64<<10)
	defer bw.Flush()
	var v values
	var buf []byte
	s.events(r, w, bw, eventWriter{
		pod: func(typ string, i int, rv int64) ([]byte, error) {
			v.set(pp, i, rv)
			buf, err = pp.appendFrame(buf[:0], typ, &v)
			return buf, err
		},
		bookmark: func(rv string) ([]byte, error) {
			return pp.encodeJSON(func(enc protoenc.Encoder) ([]byte, error) {
				return enc.WatchFrame(nil, apiwire.Bookmark, apiwire.PodBookmark(rv, true))
			})
		},
	})
}

// listProtobuf appends the PodList envelope of one page to b. The page is
// made in one buffer of its exact size: its length is known before any
// item is written (from the items' shapes), so nothing is copied twice.
func (s *Server) listProtobuf(b []byte, pp *protoPods, limitParam, cont string) ([]byte, error) {
	from, to, md := s.page(limitParam, cont)
	head := apiwire.ListPage("PodList", md, nil)
	meta, err := pp.encodeJSON(func(enc protoenc.Encoder) ([]byte, error) {
		return enc.Message(nil, "PodList", head) // the metadata: items follow it in field order
	})
	if err != nil {
		return nil, fmt.Errorf("benchserver: encode the list in protobuf: %w", err)
	}
	raw := len(meta)
	var v values
	for i := from; i < to; i++ {
		v.set(pp, i, int64(i+1))
		n, err := pp.podSize(&v)
		if err != nil {
			return nil, err
		}
		raw += 1 + varintSize(n) + n
	}
	tm := protoenc.AppendBytesField(nil, 1, envelopeTypeMetaOf("v1", "PodList"))
	size := len(protowire.Magic) + len(tm) + 1 + varintSize(raw) + raw + 4
	b = slices.Grow(b[:0], size)
	b = append(b, protowire.Magic...)
	b = append(b, tm...)
	b = append(b, 2<<3|2)
	b = protoenc.AppendVarint(b, uint64(raw))
	b = append(b, meta...)
	for i := from; i < to; i++ {
		v.set(pp, i, int64(i+1))
		if b, err = pp.appendListItem(b, &v); err != nil {
			return nil, err
		}
	}
	return append(b, 3<<3|2, 0, 4<<3|2, 0), nil
}

// envelopeTypeMetaOf is an envelope's typeMeta message: apiVersion, kind.
func envelopeTypeMetaOf(apiVersion, kind string) []byte {
	return protoenc.AppendBytesField(protoenc.AppendBytesField(nil, 1, []byte(apiVersion)), 2, []byte(kind))
}

// pages are the buffers list pages are made in, reused: a page of 500 pods
// is 5 MB, which made afresh for every page cost more than filling it.
var pages = sync.Pool{New: func() any { return new([]byte) }}
