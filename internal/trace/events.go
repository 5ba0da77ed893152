package trace

import (
	"strconv"

	"github.com/podwatch/podwatch/rest/jsonx"
	"github.com/podwatch/podwatch/rest/meta"
)

// maxEventBytes bounds the event the framer holds; past it the stream is no
// longer split into events (the client's own decoder refuses such a frame too).
const maxEventBytes = 16 << 20

// framer splits a watch stream into its events as bytes arrive, on its own,
// so the trace does not depend on how the client's decoder buffers: it keeps
// only the bytes of the event in progress. Not safe for concurrent use.
type framer struct {
	buf    []byte
	start  int64 // stream offset of buf[0]
	depth  int
	inStr  bool
	esc    bool
	broken bool
}

// feed scans data, which begins at stream offset off, and calls emit for
// each event it completes.
func (f *framer) feed(data []byte, off int64, emit func(*Event)) {
	for i, c := range data {
		if f.broken {
			return
		}
		if f.depth == 0 {
			switch c {
			case ' ', '\t', '\r', '\n':
				continue
			case '{':
				f.buf, f.start, f.depth = append(f.buf[:0], c), off+int64(i), 1
				continue
			default:
				// Not a JSON object: the client's decoder fails here too.
				f.broken = true
				return
			}
		}
		f.buf = append(f.buf, c)
		if len(f.buf) > maxEventBytes {
			f.broken, f.buf = true, nil
			return
		}
		switch {
		case f.esc:
			f.esc = false
		case f.inStr && c == '\\':
			f.esc = true
		case c == '"':
			f.inStr = !f.inStr
		case f.inStr:
		case c == '{':
			f.depth++
		case c == '}':
			f.depth--
			if f.depth == 0 {
				emit(parseEvent(f.buf, f.start))
				f.buf = f.buf[:0]
			}
		}
	}
}

// leftover is how many bytes of an unfinished event are held.
func (f *framer) leftover() int {
	if f.depth == 0 {
		return 0
	}
	return len(f.buf)
}

// parseEvent reads what a trace tells of one event. It never fails: what
// cannot be read is left out, and the client's decoder says what was wrong.
func parseEvent(frame []byte, off int64) *Event {
	e := &Event{Offset: off, Bytes: len(frame)}
	var object []byte
	r := jsonx.NewReader(frame)
	r.Object(func(key []byte) {
		switch string(key) {
		case "type":
			e.Type = r.String()
		case "object":
			object = r.Raw()
		default:
			r.Skip()
		}
	})
	switch {
	case e.Type == "ERROR" && object != nil:
		if st, err := meta.ParseStatus(object); err == nil {
			e.Status = &Status{Code: st.Code, Reason: string(st.Reason), Message: oneLine(st.Message)}
		}
	case object != nil:
		readMeta(object, e)
	}
	e.Explain = explainEvent(e)
	return e
}

func readMeta(object []byte, e *Event) {
	r := jsonx.NewReader(object)
	r.Object(func(key []byte) {
		if string(key) != "metadata" {
			r.Skip()
			return
		}
		var m meta.ObjectMeta
		m.ReadJSON(r)
		e.Namespace, e.Name, e.ResourceVersion = m.Namespace, m.Name, m.ResourceVersion
		e.Deleting = m.DeletionTimestamp != nil
		if e.Type == "BOOKMARK" && len(m.Annotations) > 0 {
			e.Annotations = m.Annotations
		}
	})
}

func itoa(n int) string { return strconv.Itoa(n) }
