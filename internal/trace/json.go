package trace

import (
	"bytes"
	"encoding/json"
	"io"
)

// JSON returns a Sink writing each step as one JSON object on its own line,
// with one Write, in the schema docs/TRACE.md documents. Close does not close
// w.
func JSON(w io.Writer) Sink { return &jsonSink{w: w} }

type jsonSink struct{ w io.Writer }

func (s *jsonSink) Close() error { return nil }

func (s *jsonSink) Step(st Step) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(st); err != nil {
		return err
	}
	_, err := s.w.Write(b.Bytes())
	return err
}
