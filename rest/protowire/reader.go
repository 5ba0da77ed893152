package protowire

import (
	"encoding/binary"
	"fmt"
	"slices"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/podwatch/podwatch/rest/jsonx"
)

// Reader decodes a protobuf message into a Go type that models some of its
// fields (see Model): Message calls back for each modelled field, whose value
// the callback reads with String, Int64, Time and the like, and keeps every
// other field in its wire form in the type's jsonx.Extra, after checking it
// against the schema as transcoding it to JSON would (a walk that writes
// nothing, walk.go). Nothing is transcoded while reading valid input.
//
// The first error stops the Reader; Err then returns a *SyntaxError (or a
// *TooLargeError, for kept fields whose JSON would be over Limit) at the
// offset of the byte at fault, counted from the base given to Reset. A Reader
// is not safe for concurrent use.
type Reader struct {
	// Limit bounds the JSON the fields kept from one message would take, as
	// Transcoder.Limit does; 0 means DefaultLimit.
	Limit int

	data  []byte
	base  int64
	err   error
	depth int

	// The field being read: its number and wire type, its varint or fixed
	// value, or its bytes data[lo:hi]; key is where its key starts.
	num      int32
	wire     uint8
	val      uint64
	key, lo  int
	hi       int
	spans    []keptSpan // the kept fields of the messages being read, a stack
	together []keptSpan // the spans of one message kept as one run
	scratch  []byte     // a kept run made of several spans
	arena    []byte     // strings and small kept runs of this input
	// held is how much the arena took for this input; hint, for the last,
	// sizes the first chunk for the next: pods of one cluster are alike.
	held, hint int

	walker     *walker     // checks kept runs, made on first use
	checker    *Transcoder // tells what is wrong with a run the walk doubts
	checkRun   []byte      // the run runChecker checks: its bytes,
	checkSpans []keptSpan  // and where they are in the input
	checkWith  *Model
}

// keptSpan is a run of kept fields, data[lo:hi]; apart marks a field kept
// as a run of its own (Model.Apart).
type keptSpan struct {
	lo, hi int
	apart  bool
}

// Reset makes r read data, whose first byte is at offset base of the stream
// errors are reported in, keeping its scratch space. Strings and kept values
// read before stay valid: they are never written again.
func (r *Reader) Reset(data []byte, base int64) {
	hint := r.hint
	if r.held > 0 {
		// Bounded: one large input must not make every later one hold a
		// large chunk.
		hint = min(r.held, maxArenaHint)
	}
	*r = Reader{Limit: r.Limit, data: data, base: base, spans: r.spans[:0], together: r.together[:0],
		scratch: r.scratch[:0], walker: r.walker, checker: r.checker, hint: hint}
}

// Err returns the first error met, or nil.
func (r *Reader) Err() error { return r.err }

func (r *Reader) fail(at int, msg string) {
	if r.err == nil {
		r.err = &SyntaxError{Offset: r.base + int64(at), Msg: msg}
	}
}

// Message reads a message: the whole input at the top, else the value of the
// field being read. field is called for each field m models, with its
// number, and reads its value; the others are kept in extra.
func (r *Reader) Message(m *Model, extra *jsonx.Extra, field func(num int32)) {
	if r.err != nil {
		return
	}
	lo, hi := 0, len(r.data)
	if r.depth > 0 {
		if !r.want(wireBytes, "a message") {
			return
		}
		lo, hi = r.lo, r.hi
	}
	if r.depth >= maxDepth {
		r.fail(lo, "messages nested too deeply")
		return
	}
	r.depth++
	sb := len(r.spans)
	for p := lo; p < hi && r.err == nil; {
		if !r.next(p, hi) {
			break
		}
		key, end := r.key, r.hi
		if r.wire != wireBytes {
			end = r.lo
		}
		switch {
		case m.models(r.num):
			if field != nil {
				field(r.num)
			}
		case m.isApart(r.num):
			r.spans = append(r.spans, keptSpan{lo: key, hi: end, apart: true})
		default:
			if n := len(r.spans); n > sb && !r.spans[n-1].apart && r.spans[n-1].hi == key {
				r.spans[n-1].hi = end
			} else {
				r.spans = append(r.spans, keptSpan{lo: key, hi: end})
			}
		}
		p = end
	}
	r.depth--
	switch {
	case r.err != nil:
	case len(r.spans) > sb:
		r.keep(m, extra, r.spans[sb:])
	case m.keepEmpty:
		extra.KeepEncoded(m.enc, nil)
	}
	r.spans = r.spans[:sb]
}

// next reads the key and value of the field at data[p:], which ends by hi.
// For a length-delimited field, data[lo:hi] is its value; for the others, lo
// is where the next field starts.
func (r *Reader) next(p, hi int) bool {
	key, n := binary.Uvarint(r.data[p:hi])
	if n <= 0 {
		r.err = badVarint(r.base+int64(p), n)
		return false
	}
	num, wire := key>>3, uint8(key&7)
	if num == 0 || num > 1<<29-1 {
		r.fail(p, fmt.Sprintf("field number %d", num))
		return false
	}
	r.key, r.num, r.wire = p, int32(num), wire
	p += n
	switch wire {
	case wireVarint:
		r.val, n = binary.Uvarint(r.data[p:hi])
		if n <= 0 {
			r.err = badVarint(r.base+int64(p), n)
			return false
		}
		r.lo = p + n
	case wireFixed64:
		if hi-p < 8 {
			r.err = truncated(r.base+int64(p), "a fixed64 value")
			return false
		}
		r.val, r.lo = binary.LittleEndian.Uint64(r.data[p:]), p+8
	case wireFixed32:
		if hi-p < 4 {
			r.err = truncated(r.base+int64(p), "a fixed32 value")
			return false
		}
		r.val, r.lo = uint64(binary.LittleEndian.Uint32(r.data[p:])), p+4
	case wireBytes:
		l, m := binary.Uvarint(r.data[p:hi])
		if m <= 0 {
			r.err = badVarint(r.base+int64(p), m)
			return false
		}
		p += m
		if l > uint64(hi-p) {
			r.err = truncated(r.base+int64(p), fmt.Sprintf("%d bytes", l))
			return false
		}
		r.lo, r.hi = p, p+int(l)
	default:
		r.fail(r.key, fmt.Sprintf("wire type %d", wire))
		return false
	}
	return true
}

// want checks that the field being read has wire type w.
func (r *Reader) want(w uint8, what string) bool {
	if r.err != nil {
		return false
	}
	if r.wire != w {
		r.fail(r.key, fmt.Sprintf("field %d has wire type %d, want %s", r.num, r.wire, what))
		return false
	}
	return true
}

// String reads a string field. Each byte that is not part of valid UTF-8
// becomes U+FFFD: the string a JSON reader (encoding/json, jsonx) gets from
// the server's JSON of the same field, where it is \ufffd. Fields the type
// keeps rather than reads stay as sent until written (see Transcoder).
func (r *Reader) String() string {
	if !r.want(wireBytes, "a string") {
		return ""
	}
	return r.str(r.data[r.lo:r.hi])
}

func (r *Reader) str(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if !utf8.Valid(b) {
		b = validUTF8(b)
	}
	// Strings are cut from the arena, which is only ever appended to.
	b = r.hold(b)
	return unsafe.String(unsafe.SliceData(b), len(b))
}

func validUTF8(b []byte) []byte {
	out := make([]byte, 0, len(b)+8)
	for len(b) > 0 {
		c, n := utf8.DecodeRune(b)
		out = utf8.AppendRune(out, c) // RuneError for each bad byte
		b = b[n:]
	}
	return out
}

// Int64 reads an integer field.
func (r *Reader) Int64() int64 {
	if !r.want(wireVarint, "an integer") {
		return 0
	}
	return int64(r.val)
}

// Int64Ptr reads an integer field into a new int64.
func (r *Reader) Int64Ptr() *int64 {
	v := r.Int64()
	if r.err != nil {
		return nil
	}
	return &v
}

// Time reads a Time (seconds and nanoseconds) as the API's JSON holds it: to
// the second, in UTC. An empty message is the zero time.
func (r *Reader) Time() time.Time {
	if !r.want(wireBytes, "a timestamp") {
		return time.Time{}
	}
	if r.lo == r.hi {
		return time.Time{}
	}
	var buf [4]occ
	fields, err := scanFields(buf[:0], r.data[r.lo:r.hi], r.base+int64(r.lo))
	if err != nil {
		r.err = err
		return time.Time{}
	}
	var secs uint64
	for _, f := range fields {
		if f.num > 3 {
			continue
		}
		if f.wire != wireVarint {
			// The transcoder's rule for the forms: fields 1 to 3 are varints.
			r.err = &SyntaxError{Offset: f.at, Msg: fmt.Sprintf("timestamp field %d has wire type %d", f.num, f.wire)}
			return time.Time{}
		}
		if f.num == 1 {
			secs = f.val
		}
	}
	t := time.Unix(int64(secs), 0).UTC()
	if y := t.Year(); (y < 0 || y > 9999) && !t.IsZero() {
		// RFC 3339 has four digits for the year: the server's JSON could
		// not hold this time, nor could a JSON reader take it back.
		r.fail(r.lo, fmt.Sprintf("timestamp in year %d", y))
		return time.Time{}
	}
	return t
}

// TimePtr reads a Time into a new time.Time; the zero time is nil, as its
// JSON, null, reads.
func (r *Reader) TimePtr() *time.Time {
	t := r.Time()
	if r.err != nil || t.IsZero() {
		return nil
	}
	return &t
}

// MapEntry reads one entry of a map of strings into m, which it makes when
// nil, and returns m. A key given twice keeps its last value. Keys and
// values are read as recurring strings (RecurringString): maps of strings
// are labels and annotations, which replicas share.
func (r *Reader) MapEntry(m map[string]string) map[string]string {
	if !r.want(wireBytes, "a map entry") {
		return m
	}
	var buf [4]occ
	fields, err := scanFields(buf[:0], r.data[r.lo:r.hi], r.base+int64(r.lo))
	if err != nil {
		r.err = err
		return m
	}
	var k, v []byte
	for _, f := range fields {
		if f.num > 2 {
			continue
		}
		if f.wire != wireBytes {
			r.err = &SyntaxError{Offset: f.at, Msg: fmt.Sprintf("map entry field %d has wire type %d", f.num, f.wire)}
			return m
		}
		if f.num == 1 {
			k = f.data
		} else {
			v = f.data
		}
	}
	if m == nil {
		m = make(map[string]string, 4)
	}
	// Labels and annotations: most recur in every replica of a template.
	m[r.recurringStr(k)] = r.recurringStr(v)
	return m
}

// arenaChunk is the least size of a chunk of the arena: a pod's strings and
// small kept runs take about a kilobyte.
const arenaChunk = 512

// maxArenaHint bounds the first chunk an input's arena is given.
const maxArenaHint = 4 << 10

// hold copies v into the arena. A full chunk is left as it is, for what
// points into it, and a new one begun. The first is as large as the last
// input's arena was, so a store of pods holds about one chunk a pod, filled,
// where chunks doubling from a small one left a third of them empty.
func (r *Reader) hold(v []byte) []byte {
	if cap(r.arena)-len(r.arena) < len(v) {
		size := arenaChunk
		if r.arena == nil {
			size = r.hint
		}
		r.arena = make([]byte, 0, max(size, arenaChunk, len(v)))
	}
	r.held += len(v)
	start := len(r.arena)
	r.arena = append(r.arena, v...)
	return r.arena[start:len(r.arena):len(r.arena)]
}

// keep adds the fields of one message kept in spans to extra: those kept
// together as one run, then each field kept apart as a run of its own.
func (r *Reader) keep(m *Model, extra *jsonx.Extra, spans []keptSpan) {
	together := r.together[:0]
	for _, s := range spans {
		if !s.apart {
			together = append(together, s)
		}
	}
	r.together = together
	// One run for the fields kept together, one for each kept apart: room
	// made once, not by appends doubling from one.
	runs := len(spans) - len(together)
	if len(together) > 0 {
		runs++
	}
	*extra = slices.Grow(*extra, runs)
	switch len(together) {
	case 0:
	case 1:
		r.keepRun(m, extra, r.data[together[0].lo:together[0].hi], together)
	default:
		run := r.scratch[:0]
		for _, s := range together {
			run = append(run, r.data[s.lo:s.hi]...)
		}
		r.scratch = run
		r.keepRun(m, extra, run, together)
	}
	for i := range spans {
		if spans[i].apart && r.err == nil {
			r.keepRun(m, extra, r.data[spans[i].lo:spans[i].hi], spans[i:i+1])
		}
	}
}

// keepRun keeps a copy of run, the fields of spans, in extra once it is
// checked. A large run equal to one kept before is shared with it, and so
// needs no second check.
func (r *Reader) keepRun(m *Model, extra *jsonx.Extra, run []byte, spans []keptSpan) {
	r.checkRun, r.checkSpans, r.checkWith = run, spans, m
	var kept []byte
	var err error
	if !memoChecks {
		if err = (*runChecker)(r).Check(); err != nil {
			r.err = err
			return
		}
	}
	if len(run) >= jsonx.ShareMin {
		kept, err = m.enc.Share(run, (*runChecker)(r))
	} else {
		if ok, h := m.checked.has(run); !ok {
			if err = (*runChecker)(r).Check(); err == nil {
				m.checked.add(run, h)
			}
		}
		kept = r.hold(run)
	}
	if err != nil {
		r.err = err
		return
	}
	extra.KeepEncoded(m.enc, kept)
}

// memoChecks lets a run equal to one checked before go unchecked; only a
// benchmark of the cost of first sight turns it off.
var memoChecks = true

// runChecker checks the run a Reader is about to keep.
type runChecker Reader

// Check checks the run by walking it (walk.go), and where the walk cannot
// tell, by transcoding it at its offsets in the input and discarding the
// JSON: what writing the kept run later does (Model.write), so a run that
// passes cannot fail then, and a run that fails has the Transcoder's error.
func (c *runChecker) Check() error {
	r := (*Reader)(c)
	if r.walker == nil {
		r.walker = new(walker)
	}
	limit := r.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	if r.walker.walkRun(r.checkWith.msg, r.checkRun, limit) == valid {
		return nil
	}
	return c.transcode()
}

// transcode checks the run by transcoding it.
func (c *runChecker) transcode() error {
	r := (*Reader)(c)
	if r.checker == nil {
		r.checker = &Transcoder{}
	}
	t := r.checker
	t.Limit = r.Limit
	t.reset()
	o := t.w.BeginObject()
	start := len(t.occs)
	for _, s := range r.checkSpans {
		var err error
		if t.occs, err = scanFields(t.occs, r.data[s.lo:s.hi], r.base+int64(s.lo)); err != nil {
			return err
		}
	}
	return t.fields(&o, r.checkWith.msg, start, r.checkWith.modelled)
}
