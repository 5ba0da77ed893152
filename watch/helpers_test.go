package watch

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/podwatch/podwatch/rest/cborwire"
	"github.com/podwatch/podwatch/rest/jsonx"
	"github.com/podwatch/podwatch/rest/meta"
)

// testObj is what the tests decode objects into: the metadata they check, and the
// names of the other members, so a decoder that lost or mixed them up shows.
type testObj struct {
	Name            string
	ResourceVersion string
	Annotations     map[string]string
	Others          []string
}

// testCodec decodes testObj from JSON, and from protobuf by transcoding.
var testCodec = jsonCodec(decodeTestObj)

// jsonCodec is the Codec of a JSON decoder alone.
func jsonCodec[T any](decode func([]byte) (T, error)) meta.Codec[T] {
	return meta.Codec[T]{JSON: decode}
}

func decodeTestObj(data []byte) (testObj, error) {
	r := jsonx.NewReader(data)
	var o testObj
	r.Object(func(key []byte) {
		if string(key) != "metadata" {
			o.Others = append(o.Others, string(key))
			r.Skip()
			return
		}
		var m meta.ObjectMeta
		m.ReadJSON(r)
		o.Name, o.ResourceVersion, o.Annotations = m.Name, m.ResourceVersion, m.Annotations
	})
	if r.Err() == nil && !r.AtEnd() {
		r.Fail("data after the object")
	}
	if err := r.Err(); err != nil {
		return testObj{}, fmt.Errorf("decode test object: %w", err)
	}
	return o, nil
}

// obj is the JSON of an object named name at resourceVersion rv.
func obj(name, rv string) string {
	return fmt.Sprintf(`{"metadata":{"name":%q,"resourceVersion":%q},"spec":{"x":[1,{"y":"z"}]}}`, name, rv)
}

// event is the JSON of one event, without the newline.
func event(typ EventType, object string) string {
	return fmt.Sprintf(`{"type":%q,"object":%s}`, typ, object)
}

const goneStatus = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 5 (10)","reason":"Expired","code":410}`

// chunkReader returns its chunks one per Read (split further only if p is short),
// the way a watch body returns what each network read brought.
type chunkReader struct {
	chunks []string
	reads  int
	err    error // returned after the chunks; io.EOF when nil
}

func (r *chunkReader) Read(p []byte) (int, error) {
	r.reads++
	for len(r.chunks) > 0 && r.chunks[0] == "" {
		r.chunks = r.chunks[1:]
	}
	if len(r.chunks) == 0 {
		if r.err != nil {
			return 0, r.err
		}
		return 0, io.EOF
	}
	n := copy(p, r.chunks[0])
	r.chunks[0] = r.chunks[0][n:]
	return n, nil
}

// got is the comparable part of a decoded event.
type got struct {
	Type   EventType
	Object testObj
	Offset int64
}

// decodeAll decodes until the first error and returns the events and that error.
func decodeAll(r io.Reader, opts DecoderOptions) ([]got, error) {
	d := NewDecoder(r, testCodec, opts)
	var evs []got
	for {
		ev, err := d.Decode()
		if err != nil {
			return evs, err
		}
		evs = append(evs, got{Type: ev.Type, Object: ev.Object, Offset: ev.Offset})
	}
}

// errInfo classifies an error by its type and offset, so tests compare outcomes
// without matching error text.
type errInfo struct {
	Kind   string
	Offset int64
	Type   string // of an unknown event type
}

func classify(err error) errInfo {
	var (
		se *jsonx.SyntaxError
		fe *FrameTooLargeError
		ue *UnknownEventTypeError
		oe *ObjectError
		ce *cborwire.SyntaxError
	)
	switch {
	case err == nil:
		return errInfo{Kind: "none"}
	case err == io.EOF:
		return errInfo{Kind: "eof"}
	case errors.Is(err, io.ErrUnexpectedEOF):
		return errInfo{Kind: "unexpected-eof"}
	case errors.As(err, &se):
		return errInfo{Kind: "syntax", Offset: se.Offset}
	case errors.As(err, &fe):
		return errInfo{Kind: "too-large", Offset: fe.Offset}
	case errors.As(err, &ue):
		return errInfo{Kind: "unknown-type", Offset: ue.Offset, Type: ue.Type}
	case errors.As(err, &oe):
		return errInfo{Kind: "object", Offset: oe.Offset}
	case errors.As(err, &ce):
		return errInfo{Kind: "cbor-syntax", Offset: ce.Offset}
	}
	return errInfo{Kind: "other: " + err.Error()}
}

func readRealPod(tb testing.TB) string {
	tb.Helper()
	data, err := os.ReadFile("../testdata/pod.json")
	if err != nil {
		tb.Fatalf("read real pod: %v", err)
	}
	return strings.TrimSpace(string(data))
}

// realPodStream is n events of the real pod, each copy with its own name and
// resourceVersion, half ADDED and half MODIFIED.
func realPodStream(tb testing.TB, n int) []byte {
	tb.Helper()
	pod := readRealPod(tb)
	const name, rv = `"name":"web-frontend-7d9f8b6c5d-x2kqz"`, `"resourceVersion":"268"`
	if strings.Count(pod, name) != 1 || strings.Count(pod, rv) != 1 {
		tb.Fatalf("real pod: want one %s and one %s", name, rv)
	}
	var b strings.Builder
	for i := range n {
		p := strings.Replace(pod, name, fmt.Sprintf(`"name":"web-frontend-7d9f8b6c5d-%05d"`, i), 1)
		p = strings.Replace(p, rv, fmt.Sprintf(`"resourceVersion":"%d"`, 1000+i), 1)
		typ := Added
		if i >= n/2 {
			typ = Modified
		}
		b.WriteString(event(typ, p))
		b.WriteByte('\n')
	}
	return []byte(b.String())
}
