package cborwire

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/podwatch/podwatch/rest/jsonx"
)

// Tag numbers the apiserver's items may carry.
const (
	// TagSelfDescribed (RFC 8949 §3.4.6) marks bytes as CBOR; the apiserver
	// puts it before every object, and before every watch event. It adds
	// nothing to the value and is read through.
	TagSelfDescribed = 55799
	// A byte string under these tags is written in JSON as the text it
	// expects to become: base64url, base64 or base16.
	tagBase64URL = 21
	tagBase64    = 22
	tagBase16    = 23
)

// MaxDepth bounds nesting, as the JSON readers do.
const MaxDepth = 10000

// Transcoder writes CBOR items as the JSON the apiserver would have sent.
// Its zero value works; it reuses its buffer from one item to the next.
type Transcoder struct {
	// Limit bounds the JSON of one item; 0 means no bound.
	Limit int
	buf   []byte
	base  int64 // stream offset of the item, for errors
	// starts holds, per open map, where each member begins in buf (a stack:
	// a map nested in a value pushes its own and pops them when done);
	// order and scratch are reused when a map's members are put in order.
	starts  []int
	order   []member
	scratch []byte
}

// member is one written map member: its JSON, key first, within scratch.
type member struct{ start, end int }

// JSON returns the JSON of the single CBOR item in item, found at stream
// offset off, valid until the next call. Strings come as byte or text
// strings alike (the apiserver writes byte strings); a byte string tagged
// 21, 22 or 23 is written as its base64url, base64 or hex text, as JSON
// holds bytes; maps need string keys; the self-describe tag is read
// through; floats are written as encoding/json writes them. Anything else
// (another tag, undefined, NaN, bytes after the item) is a *SyntaxError at
// its stream offset, and JSON over Limit a *TooLargeError.
//
// A string's bytes are not checked to be UTF-8 (a byte string need not be):
// jsonx.AppendQuote writes them as encoding/json writes a Go string holding
// them, each byte that is not part of valid UTF-8 as \ufffd, which a JSON
// reader then reads as U+FFFD, as it would from the apiserver's JSON.
func (t *Transcoder) JSON(item []byte, off int64) ([]byte, error) {
	t.buf, t.base = t.buf[:0], off
	end, err := t.value(item, 0, 0)
	if err != nil {
		return nil, err
	}
	if end != len(item) {
		return nil, t.syntax(end, "%d bytes after the item", len(item)-end)
	}
	return t.buf, nil
}

func (t *Transcoder) syntax(p int, format string, args ...any) error {
	return &SyntaxError{Offset: t.base + int64(p), Msg: fmt.Sprintf(format, args...)}
}

// head reads the header at v[p].
func (t *Transcoder) head(v []byte, p int) (Head, error) {
	h, ok, bad := ParseHead(v[p:])
	if bad != "" {
		return h, t.syntax(p, "%s", bad)
	}
	if !ok {
		return h, t.syntax(len(v), "item ends inside a header")
	}
	return h, nil
}

// body returns the end of a string of h.Arg bytes after its header at p.
func (t *Transcoder) body(v []byte, p int, h Head) (int, error) {
	start := p + h.Size
	if h.Arg > uint64(len(v)-start) {
		return 0, t.syntax(p, "string of %d bytes, %d left in the item", h.Arg, len(v)-start)
	}
	return start + int(h.Arg), nil
}

// value writes the item at v[p] and returns the index after it.
func (t *Transcoder) value(v []byte, p, depth int) (int, error) {
	if depth > MaxDepth {
		return 0, t.syntax(p, "items nested more than %d deep", MaxDepth)
	}
	if p >= len(v) {
		return 0, t.syntax(p, "item ends before a value")
	}
	h, err := t.head(v, p)
	if err != nil {
		return 0, err
	}
	switch h.Major {
	case MajorUint:
		t.buf = strconv.AppendUint(t.buf, h.Arg, 10)
		return p + h.Size, nil
	case MajorNegInt:
		t.buf = appendNegative(t.buf, h.Arg)
		return p + h.Size, nil
	case MajorBytes, MajorText:
		end, err := t.body(v, p, h)
		if err != nil {
			return 0, err
		}
		t.buf = jsonx.AppendQuote(t.buf, v[p+h.Size:end])
		return end, t.checkSize()
	case MajorArray:
		return t.array(v, p, h, depth)
	case MajorMap:
		return t.object(v, p, h, depth)
	case MajorTag:
		return t.tagged(v, p, h, depth)
	}
	return t.simple(v, p, h)
}

func (t *Transcoder) checkSize() error {
	if t.Limit > 0 && len(t.buf) > t.Limit {
		return &TooLargeError{Limit: t.Limit}
	}
	return nil
}

func (t *Transcoder) array(v []byte, p int, h Head, depth int) (int, error) {
	q := p + h.Size
	if h.Arg > uint64(len(v)-q) {
		return 0, t.syntax(p, "array of %d items, %d bytes left in the item", h.Arg, len(v)-q)
	}
	t.buf = append(t.buf, '[')
	for i := range int(h.Arg) {
		if i > 0 {
			t.buf = append(t.buf, ',')
		}
		var err error
		if q, err = t.value(v, q, depth+1); err != nil {
			return 0, err
		}
	}
	t.buf = append(t.buf, ']')
	return q, t.checkSize()
}

func (t *Transcoder) object(v []byte, p int, h Head, depth int) (int, error) {
	q := p + h.Size
	if h.Arg > uint64(len(v)-q)/2 {
		return 0, t.syntax(p, "map of %d pairs, %d bytes left in the item", h.Arg, len(v)-q)
	}
	t.buf = append(t.buf, '{')
	base := len(t.starts)
	defer func() { t.starts = t.starts[:base] }()
	for i := range int(h.Arg) {
		if i > 0 {
			t.buf = append(t.buf, ',')
		}
		t.starts = append(t.starts, len(t.buf))
		var err error
		if q, err = t.key(v, q); err != nil {
			return 0, err
		}
		t.buf = append(t.buf, ':')
		if q, err = t.value(v, q, depth+1); err != nil {
			return 0, err
		}
	}
	t.sortMembers(t.starts[base:])
	t.buf = append(t.buf, '}')
	return q, t.checkSize()
}

// sortMembers puts the members just written, which begin at starts, in the
// order of their keys. The apiserver writes a map's members in an order of
// its own that changes from item to item, so without this two items holding
// the same object would give different JSON, and the same pod would seem to
// change (the pod config compares specs by their JSON).
func (t *Transcoder) sortMembers(starts []int) {
	if len(starts) < 2 {
		return
	}
	first, end := starts[0], len(t.buf)
	t.scratch = append(t.scratch[:0], t.buf[first:end]...)
	t.order = t.order[:0]
	sorted := true
	for i, s := range starts {
		e := end
		if i+1 < len(starts) {
			e = starts[i+1] - 1 // the comma before the next member
		}
		m := member{s - first, e - first}
		if i > 0 && bytes.Compare(t.scratch[m.start:m.end], t.scratch[t.order[i-1].start:t.order[i-1].end]) < 0 {
			sorted = false
		}
		t.order = append(t.order, m)
	}
	if sorted {
		return
	}
	slices.SortFunc(t.order, func(a, b member) int {
		return bytes.Compare(t.scratch[a.start:a.end], t.scratch[b.start:b.end])
	})
	t.buf = t.buf[:first]
	for i, m := range t.order {
		if i > 0 {
			t.buf = append(t.buf, ',')
		}
		t.buf = append(t.buf, t.scratch[m.start:m.end]...)
	}
}

// key writes the map key at v[p], which must be a string.
func (t *Transcoder) key(v []byte, p int) (int, error) {
	if p >= len(v) {
		return 0, t.syntax(p, "item ends before a map key")
	}
	h, err := t.head(v, p)
	if err != nil {
		return 0, err
	}
	if h.Major != MajorBytes && h.Major != MajorText {
		return 0, t.syntax(p, "map key of major type %d, want a string", h.Major)
	}
	end, err := t.body(v, p, h)
	if err != nil {
		return 0, err
	}
	t.buf = jsonx.AppendQuote(t.buf, v[p+h.Size:end])
	return end, nil
}

// tagged writes the tag content at v[p] as its tag says.
func (t *Transcoder) tagged(v []byte, p int, h Head, depth int) (int, error) {
	q := p + h.Size
	switch h.Arg {
	case TagSelfDescribed:
		return t.value(v, q, depth+1)
	case tagBase64URL, tagBase64, tagBase16:
	default:
		return 0, t.syntax(p, "tag %d is not read", h.Arg)
	}
	if q >= len(v) {
		return 0, t.syntax(q, "item ends before the tag's content")
	}
	c, err := t.head(v, q)
	if err != nil {
		return 0, err
	}
	if c.Major != MajorBytes {
		return 0, t.syntax(q, "tag %d on major type %d, want a byte string", h.Arg, c.Major)
	}
	end, err := t.body(v, q, c)
	if err != nil {
		return 0, err
	}
	raw := v[q+c.Size : end]
	var text []byte
	switch h.Arg {
	case tagBase64URL:
		text = base64.RawURLEncoding.AppendEncode(nil, raw)
	case tagBase64:
		text = base64.StdEncoding.AppendEncode(nil, raw)
	default:
		text = hex.AppendEncode(nil, raw)
	}
	t.buf = jsonx.AppendQuote(t.buf, text)
	return end, t.checkSize()
}

// simple writes false, true, null or a float.
func (t *Transcoder) simple(v []byte, p int, h Head) (int, error) {
	end := p + h.Size
	switch h.Info {
	case 20:
		t.buf = append(t.buf, "false"...)
	case 21:
		t.buf = append(t.buf, "true"...)
	case 22:
		t.buf = append(t.buf, "null"...)
	// Shorter floats are widened, exactly, and written as the float64 they
	// are: the encoder shortens float64s that lose nothing by it.
	case 25:
		return end, t.float(p, halfToFloat(uint16(h.Arg)))
	case 26:
		return end, t.float(p, float64(math.Float32frombits(uint32(h.Arg))))
	case 27:
		return end, t.float(p, math.Float64frombits(h.Arg))
	default:
		return 0, t.syntax(p, "simple value %d has no JSON form", h.Arg)
	}
	return end, nil
}

// float writes f as encoding/json writes a float64.
func (t *Transcoder) float(p int, f float64) error {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return t.syntax(p, "float %v has no JSON form", f)
	}
	format := byte('f')
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	start := len(t.buf)
	t.buf = strconv.AppendFloat(t.buf, f, format, -1, 64)
	if format == 'e' {
		// encoding/json writes e-07 as e-7.
		if n := len(t.buf); n-start >= 4 && t.buf[n-4] == 'e' && t.buf[n-3] == '-' && t.buf[n-2] == '0' {
			t.buf[n-2] = t.buf[n-1]
			t.buf = t.buf[:n-1]
		}
	}
	return nil
}

// halfToFloat widens an IEEE 754 half-precision float.
func halfToFloat(h uint16) float64 {
	sign := 1.0
	if h&0x8000 != 0 {
		sign = -1
	}
	exp, frac := int(h>>10&0x1f), float64(h&0x3ff)
	switch exp {
	case 0:
		return sign * math.Ldexp(frac, -24)
	case 0x1f:
		if frac == 0 {
			return math.Inf(int(sign))
		}
		return math.NaN()
	}
	return sign * math.Ldexp(1024+frac, exp-25)
}

// appendNegative writes -1-n, which may be below math.MinInt64.
func appendNegative(b []byte, n uint64) []byte {
	if n == math.MaxUint64 {
		return append(b, "-18446744073709551616"...)
	}
	b = append(b, '-')
	return strconv.AppendUint(b, n+1, 10)
}
