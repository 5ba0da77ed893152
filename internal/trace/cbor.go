package trace

import (
	"encoding/hex"
	"mime"

	"github.com/podwatch/podwatch/rest/cborwire"
)

// isCBOR says whether a Content-Type is CBOR: application/cbor-seq for a
// watch, application/cbor for the rest.
func isCBOR(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && (mt == "application/cbor-seq" || mt == "application/cbor")
}

// cborHead is how many of an item's first bytes the trace shows: the
// self-describe tag and the map header after it.
const cborHead = 4

// parseCBORItemObject reads what a trace tells of one CBOR watch item, at
// stream offset off: its opening tag and first bytes, and the event it
// holds, read from the JSON it transcodes to; and that JSON's object (nil
// if none), in tc's buffer until its next use. It never fails: an item that
// does not transcode is told with the reason, as the client's decoder fails
// on it too.
func parseCBORItemObject(tc *cborwire.Transcoder, item []byte, off int64) (*Event, []byte) {
	ci := &CBORItem{Head: hex.EncodeToString(item[:min(cborHead, len(item))])}
	if h, ok, _ := cborwire.ParseHead(item); ok && h.Major == cborwire.MajorTag {
		ci.Tag = h.Arg
	}
	js, err := tc.JSON(item, off)
	if err != nil {
		e := &Event{Offset: off, Bytes: len(item), CBOR: ci, Error: oneLine(err.Error())}
		e.Explain = explainBadFrame
		return e, nil
	}
	e, object := parseEventObject(js, off)
	e.Bytes, e.CBOR = len(item), ci
	return e, object
}
