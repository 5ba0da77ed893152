package jsonx

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"

	"github.com/podwatch/podwatch/internal/stream"
)

// naiveFrame is the obvious byte-at-a-time framer that Framer is checked
// against: the length of the value at v[0], -1 when v ends first, or the index
// of the byte framing fails at. Like Framer it counts brackets, leaving
// their matching to the value's decoder.
func naiveFrame(v []byte, maxDepth int) (end, failAt int) {
	c := v[0]
	switch {
	case c == '{' || c == '[' || c == '"':
	case scalarByte(c):
		for i, c := range v {
			if !scalarByte(c) {
				return i, -1
			}
		}
		return -1, -1
	default:
		return -1, 0
	}
	depth := 0
	inString, escaped := false, false
	for i, c := range v {
		switch {
		case escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
			if !inString && depth == 0 {
				return i + 1, -1
			}
		case inString:
		case c == '{' || c == '[':
			if depth >= maxDepth {
				return -1, i
			}
			depth++
		case c == '}' || c == ']':
			depth--
			if depth == 0 {
				return i + 1, -1
			}
		}
	}
	return -1, -1
}

// scanPieces frames v fed as v[:cut] then all of v.
func scanPieces(v []byte, cut, maxDepth int) (end, failAt int) {
	f := Framer{MaxDepth: maxDepth}
	f.Reset()
	for _, n := range []int{cut, len(v)} {
		if n == 0 {
			continue
		}
		end, err := f.Scan(v[:n], 0)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) {
				panic(err)
			}
			return -1, int(se.Offset)
		}
		if end >= 0 {
			return end, -1
		}
	}
	return -1, -1
}

func TestJSONFramerEveryCut(t *testing.T) {
	for _, v := range []string{
		`{}`, `[]`, `""`, `"a\"b\\"`, `123 `, `true,`, `null]`,
		`{"a":"}"}`,
		`{"a":"\"}\\","b":{"c":"\\\"{"}}`,
		`{"object":{"x":{"y":"}}}"}},"type":"ADDED"}`,
		`{"a":"` + strings.Repeat(`\\\"`, 40) + `"}`,
		`[{"a":[1,{"b":"]"}]},"\u00e9\n"]`,
		`{"a":]`, `]`, `,`, `{"a":[}]}`,
		`{"ctl":"a` + "\x01\x1f" + `b\` + "\x02" + `"}`,
		strings.Repeat("[", 20) + strings.Repeat("]", 20),
	} {
		for _, depth := range []int{MaxDepth, 3} {
			end, failAt := naiveFrame([]byte(v), depth)
			for cut := 0; cut <= len(v); cut++ {
				ge, gf := scanPieces([]byte(v), cut, depth)
				if ge != end || gf != failAt {
					t.Fatalf("%s (depth %d) cut at %d: got end %d, fail at %d; want %d, %d", v, depth, cut, ge, gf, end, failAt)
				}
			}
		}
	}
}

func TestJSONFramerInner(t *testing.T) {
	v := `{"type":"ADDED","object":{"a":{"b":"}"}},"x":1}`
	var f Framer
	f.Reset()
	if end, err := f.Scan([]byte(v), 0); err != nil || end != len(v) {
		t.Fatalf("Scan: %d, %v", end, err)
	}
	start, end := f.Inner()
	if got := v[start:end]; got != `{"a":{"b":"}"}}` {
		t.Errorf("Inner is %q, want the event's object", got)
	}
}

// frameAll frames every value of r with the Reader's Next and a Framer and reports what it found
// and the error it ended on.
type framed struct {
	Values  []string
	Offsets []int64
	Err     string
}

func frameAll(r io.Reader, limit int) framed {
	var out framed
	sr := stream.NewReader(r, limit)
	var f Framer
	for {
		v, off, err := sr.Next(&f)
		if err != nil {
			out.Err = describe(err)
			return out
		}
		out.Values = append(out.Values, string(v))
		out.Offsets = append(out.Offsets, off)
	}
}

func describe(err error) string {
	var se *SyntaxError
	switch {
	case errors.As(err, &se):
		return se.Error()
	case err == io.EOF:
		return "EOF"
	case err == io.ErrUnexpectedEOF:
		return "unexpected EOF"
	case err == stream.ErrTooLarge:
		return "too large"
	}
	return "other: " + err.Error()
}

func TestNextJSON(t *testing.T) {
	in := " {\"a\":[1,\"]\"]}\n[{}]\"s\\\"\"  12 true\n{\"b\":"
	want := framed{
		Values:  []string{`{"a":[1,"]"]}`, `[{}]`, `"s\""`, `12`, `true`},
		Offsets: []int64{1, 15, 19, 26, 29},
		Err:     "unexpected EOF",
	}
	for name, r := range map[string]io.Reader{
		"whole":    strings.NewReader(in),
		"one byte": iotest.OneByteReader(strings.NewReader(in)),
		"halves":   iotest.HalfReader(strings.NewReader(in)),
	} {
		if diff := cmp.Diff(want, frameAll(r, 1<<10)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
	}
	got := frameAll(strings.NewReader(`{} }`), 1<<10)
	if got.Err != `invalid JSON at byte 3: found '}', want a value` {
		t.Errorf("stray brace: got %q", got.Err)
	}
	got = frameAll(strings.NewReader(`[1,2] [[`+strings.Repeat(" ", 30)), 16)
	if got.Err != "too large" || len(got.Values) != 1 {
		t.Errorf("value over the limit: got %+v", got)
	}
}

// chunked reads data in pieces whose sizes come from sizes, cycled.
type chunked struct {
	data  []byte
	sizes []byte
	n     int
}

func (c *chunked) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	size := 1
	if len(c.sizes) > 0 {
		size = 1 + int(c.sizes[c.n%len(c.sizes)])%64
		c.n++
	}
	n := copy(p[:min(size, len(p))], c.data)
	c.data = c.data[n:]
	return n, nil
}

// FuzzNextJSON frames any bytes read in pieces of any sizes: the values, their
// offsets and the error are those of reading it whole, and, when data is a
// sequence of valid JSON values, the values are those encoding/json finds.
func FuzzNextJSON(f *testing.F) {
	f.Add([]byte(`{"a":"}\"{"} [1,[2]] "x" 3 `), []byte{0, 5, 63})
	f.Add([]byte(`{"type":"ADDED","object":{"metadata":{"name":"\u00e9\\"}}}`+"\n"), []byte{2})
	f.Add([]byte(`{{{{"`), []byte{})
	f.Add([]byte(`[1,2]]`), []byte{1})
	f.Fuzz(func(t *testing.T, data, sizes []byte) {
		const limit = 1 << 12
		whole := frameAll(bytes.NewReader(data), limit)
		cut := frameAll(&chunked{data: data, sizes: sizes}, limit)
		if diff := cmp.Diff(whole, cut); diff != "" {
			t.Fatalf("framed differently in pieces (-whole +pieces):\n%s", diff)
		}
		want, ok := decodeValues(data)
		if !ok || len(data) > limit/2 {
			return
		}
		// A number or literal ends at the byte after it: end data with one.
		want.Err = "EOF"
		if diff := cmp.Diff(want, frameAll(bytes.NewReader(append(data, '\n')), limit)); diff != "" {
			t.Fatalf("framed otherwise than encoding/json (-want +got):\n%s", diff)
		}
	})
}

// decodeValues splits data into its values with encoding/json, and reports
// whether data was nothing but valid values and space, with space after each
// number or literal (encoding/json splits "00" in two, a framer does not).
func decodeValues(data []byte) (framed, bool) {
	d := json.NewDecoder(bytes.NewReader(data))
	var out framed
	for {
		var v json.RawMessage
		err := d.Decode(&v)
		if err == io.EOF {
			return out, true
		}
		if err != nil {
			return out, false
		}
		end := d.InputOffset()
		if scalarByte(v[0]) && end < int64(len(data)) && !isSpace(data[end]) {
			return out, false
		}
		out.Values = append(out.Values, string(v))
		out.Offsets = append(out.Offsets, end-int64(len(v)))
	}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// FuzzJSONFramer checks the word-at-a-time framer against the byte-at-a-time
// one on any bytes, fed whole and cut at any point, under a tight and the
// usual nesting bound.
func FuzzJSONFramer(f *testing.F) {
	f.Add([]byte(`{"a":["\"]}\\",{"b":"\\\\"}]}`), 7)
	f.Add([]byte(`[`+strings.Repeat(`"\\\\\\\"",`, 30)+`1]`), 100)
	f.Add([]byte(`{"a":]`), 2)
	f.Fuzz(func(t *testing.T, data []byte, cut int) {
		if len(data) == 0 || cut < 0 || cut > len(data) {
			return
		}
		for _, depth := range []int{MaxDepth, 2} {
			end, failAt := naiveFrame(data, depth)
			if ge, gf := scanPieces(data, cut, depth); ge != end || gf != failAt {
				t.Fatalf("depth %d, cut at %d: got end %d, fail at %d; want %d, %d", depth, cut, ge, gf, end, failAt)
			}
		}
	})
}
