package watch

import (
	"strings"
	"testing"

	"github.com/podwatch/podwatch/rest"
)

// FuzzErrorEvent feeds arbitrary objects through the ERROR event path: an
// ERROR event either carries a *rest.StatusError with the Status the server
// sent (by kind or by code), or fails to decode with a typed error; never a
// panic, never an ERROR event without its error.
func FuzzErrorEvent(f *testing.F) {
	for _, s := range []string{
		goneStatus,
		`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 5 (9)","reason":"Gone","code":410}`,
		`{"kind":"Status","status":"Failure","message":"internal error","reason":"InternalError","details":{"causes":[{"message":"etcd"}],"retryAfterSeconds":1},"code":500}`,
		`{"code":429,"details":{"retryAfterSeconds":99999}}`,
		`{"kind":"Pod","metadata":{"name":"p"}}`,
		`"a string"`, `[]`, `{}`, `{"kind":"Status","code":"x"}`, `{"kind":"Status"`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, obj string) {
		frame := `{"type":"ERROR","object":` + obj + "}\n"
		d := NewDecoder(strings.NewReader(frame), testCodec, DecoderOptions{MaxFrameSize: 64 << 10})
		ev, err := d.Decode()
		if err != nil {
			switch kind := classify(err).Kind; kind {
			case "unexpected-eof", "syntax", "too-large", "object":
			default:
				t.Fatalf("ERROR event %q: error %v (%s), want a typed decoding error", frame, err, kind)
			}
			return
		}
		if ev.Type != Error {
			t.Fatalf("frame %q decoded as a %s event", frame, ev.Type)
		}
		st, ok := rest.AsStatusError(ev.Err)
		if !ok {
			t.Fatalf("ERROR event %q carries %v (%T), want a *rest.StatusError", frame, ev.Err, ev.Err)
		}
		if st.Status.Kind != "Status" && st.Status.Code == 0 {
			t.Fatalf("ERROR event %q taken for a Status: %+v", frame, st.Status)
		}
	})
}
