package trace

import (
	"strconv"

	"github.com/podwatch/podwatch/internal/stream"
	"github.com/podwatch/podwatch/rest/cborwire"
	"github.com/podwatch/podwatch/rest/jsonx"
	"github.com/podwatch/podwatch/rest/meta"
	"github.com/podwatch/podwatch/rest/protowire"
	"github.com/podwatch/podwatch/watch"
)

// maxEventBytes bounds the event the framer holds; past it the stream is no
// longer split into events (the client's own decoder refuses such a frame too).
const maxEventBytes = 16 << 20

// framer splits a watch stream into its events as bytes arrive, on its own,
// so the trace does not depend on how the client's decoder buffers: it keeps
// only the bytes of the event in progress, and frames them as the client's
// decoder does: a JSON stream with stream.JSONFramer, a protobuf one with
// stream.FrameEnd (NextFrame's framing). Not safe for concurrent use.
type framer struct {
	buf    []byte // the event in progress, when it began in an earlier feed
	start  int64  // stream offset of the event in progress
	scan   stream.JSONFramer
	broken bool
	// protobuf frames the stream by length prefixes; tc reads the frames'
	// objects.
	protobuf bool
	tc       protowire.Transcoder
	// cbor frames the stream by each item's headers; cb reads the items.
	cbor bool
	cf   stream.CBORFramer
	cb   cborwire.Transcoder
	// object is the JSON object of the event being emitted, for emit to
	// read (a diff keeps a copy): it points into bytes reused afterwards.
	object []byte
}

// feed scans data, which begins at stream offset off, and calls emit for
// each event it completes.
func (f *framer) feed(data []byte, off int64, emit func(*Event)) {
	for len(data) > 0 && !f.broken {
		held := len(f.buf)
		event := data
		if held == 0 {
			if f.cbor {
				f.cf.Reset(0)
			}
			if !f.protobuf && !f.cbor {
				i := skipSpace(data)
				if i == len(data) {
					return
				}
				if data[i] != '{' {
					// Not a JSON object: the client's decoder fails here too.
					f.broken = true
					return
				}
				data, off = data[i:], off+int64(i)
				f.scan.Reset(0)
			}
			f.start, event = off, data
		} else {
			// Scan the held bytes and the new ones as one; an event whole in
			// data is framed in place, without a copy.
			f.buf = append(f.buf, data...)
			event = f.buf
		}
		n, err := f.end(event, emit)
		switch {
		case err != nil:
			f.broken, f.buf = true, nil
			return
		case n < 0 && len(event) > maxEventBytes:
			f.broken, f.buf = true, nil
			return
		case n < 0:
			if held == 0 {
				f.buf = append(f.buf[:0], data...)
			}
			return
		}
		var e *Event
		switch {
		case f.protobuf:
			e, f.object = parseFrameObject(&f.tc, event[:n], f.start)
		case f.cbor:
			e, f.object = parseCBORItemObject(&f.cb, event[:n], f.start)
		default:
			e, f.object = parseEventObject(event[:n], f.start)
		}
		emit(e)
		f.object = nil
		f.buf = f.buf[:0]
		data, off = data[n-held:], off+int64(n-held)
	}
}

// end is the length of the event at event[0], or -1 while it is not all
// there. A protobuf frame too long to hold is told (its prefix is all the
// trace can show of it) before framing stops.
func (f *framer) end(event []byte, emit func(*Event)) (int, error) {
	if f.cbor {
		return f.cf.Scan(event, maxEventBytes)
	}
	if !f.protobuf {
		return f.scan.Scan(event)
	}
	n, length, err := stream.FrameEnd(event, maxEventBytes)
	if err != nil {
		e := &Event{Offset: f.start, Bytes: stream.FrameHeader + int(length), Prefix: prefixOf(event)}
		e.Error = (&watch.FrameTooLargeError{Offset: f.start, Limit: maxEventBytes}).Error()
		e.Explain = explainBadFrame
		emit(e)
	}
	return n, err
}

func skipSpace(data []byte) int {
	i := 0
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\r' || data[i] == '\n') {
		i++
	}
	return i
}

// leftover is how many bytes of an unfinished event are held.
func (f *framer) leftover() int { return len(f.buf) }

// parseEvent reads what a trace tells of one event. It never fails: what
// cannot be read is left out, and the client's decoder says what was wrong.
func parseEvent(frame []byte, off int64) *Event {
	e, _ := parseEventObject(frame, off)
	return e
}

// parseEventObject is parseEvent that also returns the event's object (nil
// if it has none), pointing into frame.
func parseEventObject(frame []byte, off int64) (*Event, []byte) {
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
	readObject(object, e)
	e.Explain = explainEvent(e)
	return e, object
}

// readObject fills in what e tells of its object, the JSON object: an
// ERROR's Status, or the object's metadata.
func readObject(object []byte, e *Event) {
	switch {
	case e.Type == "ERROR" && object != nil:
		e.Status = statusOf(object)
	case object != nil:
		readMeta(object, e)
	}
}

// statusOf is the gist of a Status in JSON, nil if it is none.
func statusOf(object []byte) *Status {
	st, err := meta.ParseStatus(object)
	if err != nil {
		return nil
	}
	return &Status{Code: st.Code, Reason: string(st.Reason), Message: oneLine(st.Message)}
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
