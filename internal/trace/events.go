package trace

import (
	"strconv"

	"github.com/podwatch/podwatch/internal/stream"
	"github.com/podwatch/podwatch/rest/jsonx"
	"github.com/podwatch/podwatch/rest/meta"
	"github.com/podwatch/podwatch/rest/protowire"
	"github.com/podwatch/podwatch/rest/wire"
	"github.com/podwatch/podwatch/watch"
)

// maxEventBytes bounds the event the framer holds; past it the stream is no
// longer split into events (the client's own decoder refuses such a frame too).
const maxEventBytes = 16 << 20

// framer splits a watch stream into its events as bytes arrive, on its own,
// so the trace does not depend on how the client's decoder buffers: it keeps
// only the bytes of the event in progress, and frames and reads them with
// the wire format's own framer and event reader, as the client's decoder
// does. Not safe for concurrent use.
type framer struct {
	buf    []byte // the event in progress, when it began in an earlier feed
	start  int64  // stream offset of the event in progress
	events *wire.Events
	broken bool
}

func newFramer(f wire.Format) *framer { return &framer{events: f.Events(maxEventBytes)} }

// feed scans data, which begins at stream offset off, and calls emit for
// each event it completes, with the event's object in JSON (nil if none),
// valid only during the call: it points into bytes reused afterwards.
func (f *framer) feed(data []byte, off int64, emit func(e *Event, object []byte)) {
	for len(data) > 0 && !f.broken {
		held := len(f.buf)
		event := data
		if held == 0 {
			i := f.events.Space(data)
			if i == len(data) {
				return
			}
			data, off = data[i:], off+int64(i)
			f.events.Reset()
			f.start, event = off, data
		} else {
			// Scan the held bytes and the new ones as one; an event whole in
			// data is framed in place, without a copy.
			f.buf = append(f.buf, data...)
			event = f.buf
		}
		n, err := f.events.Scan(event, maxEventBytes)
		switch {
		case err == stream.ErrTooLarge:
			// A header announced it (a protobuf frame's prefix): what the
			// trace can show of it is told before framing stops.
			e := &Event{Offset: f.start, Bytes: wireHead(f.events, event, f.start)}
			describeWire(f.events.Format(), event, e)
			e.Error = (&watch.FrameTooLargeError{Offset: f.start, Limit: maxEventBytes}).Error()
			e.Explain = explainBadFrame
			emit(e, nil)
			f.broken, f.buf = true, nil
			return
		case err != nil:
			// Not an event the client's decoder can frame: it fails here too.
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
		emit(f.parse(event[:n], f.start))
		f.buf = f.buf[:0]
		data, off = data[n-held:], off+int64(n-held)
	}
}

// wireHead is how many bytes an event too large to hold was to take, as far
// as its header tells: a protobuf frame's prefix and length.
func wireHead(events *wire.Events, event []byte, start int64) int {
	if events.Format() == wire.Protobuf {
		return protowire.FrameHeader + int(events.FrameLength())
	}
	return len(event)
}

// leftover is how many bytes of an unfinished event are held.
func (f *framer) leftover() int { return len(f.buf) }

const explainBadFrame = "podwatch cannot read this frame: the client's decoder fails on it too, and the watch ends"

// parse reads what a trace tells of one event, frame, at stream offset off,
// as the client's decoder reads it: its type, what its object says of
// itself (read through its JSON), and what its wire format shows around it
// (a protobuf frame's prefix and envelope, a CBOR item's first bytes). It
// never fails: where the decoder would, the event holds the typed error's
// text. It also returns the object's JSON, nil if there is none, valid until
// the next parse.
func (f *framer) parse(frame []byte, off int64) (*Event, []byte) {
	e := &Event{Offset: off, Bytes: len(frame)}
	describeWire(f.events.Format(), frame, e)
	ev, err := f.events.Read(frame, off)
	var object []byte
	if err == nil {
		e.Type = string(ev.Type)
		if ev.Envelope != nil {
			e.Envelope = envelopeOf(ev.Envelope)
		}
		object, err = f.events.Transcoder.JSON(ev.Object)
	}
	if err != nil {
		e.Error = oneLine(err.Error())
		e.Explain = explainBadFrame
		return e, nil
	}
	readObject(object, e)
	e.Explain = explainEvent(e)
	return e, object
}

// describeWire fills in what the trace shows of an event's own wire, before
// its content: a protobuf frame's length prefix, a CBOR item's opening bytes.
func describeWire(f wire.Format, frame []byte, e *Event) {
	switch f {
	case wire.Protobuf:
		e.Prefix = prefixOf(frame)
	case wire.CBOR:
		e.CBOR = cborItemOf(frame)
	}
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
