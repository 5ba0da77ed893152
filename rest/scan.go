package rest

import (
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/podwatch/podwatch/internal/stream"
	"github.com/podwatch/podwatch/rest/jsonx"
)

// scanner frames the values of a list answer out of its stream. It follows
// only what framing needs (strings and brackets); whoever gets a value's bytes
// checks it. It holds the value being captured and one read's worth
// of data, never the stream.
type scanner struct {
	in    *stream.Reader
	frame jsonx.Framer
	limit int64 // most bytes one captured value may take
}

// errValueTooLarge reports a captured value over the scanner's limit; callers turn
// it into a typed error that says which value.
var errValueTooLarge = errors.New("value too large")

func newScanner(r io.Reader, limit int64) *scanner {
	// One byte over the limit: a number of exactly the limit is seen to end
	// only at the byte after it.
	return &scanner{in: stream.NewReader(r, int(min(limit, math.MaxInt-1))+1), limit: limit}
}

// syntaxHere is a syntax error at the next unread byte.
func (s *scanner) syntaxHere(format string, args ...any) error {
	return &jsonx.SyntaxError{Offset: s.in.Offset(), Msg: fmt.Sprintf(format, args...)}
}

// peek skips whitespace and returns the next byte without consuming it. The
// list object is open, so the stream ending here is a truncation.
func (s *scanner) peek() (byte, error) {
	if err := s.in.Skip(&s.frame); err != nil {
		return 0, stream.Truncated(err)
	}
	return s.in.Buffered()[0], nil
}

// next consumes the byte peek returned.
func (s *scanner) next() { s.in.Take(1) }

// expect consumes the next non-space byte, which must be c.
func (s *scanner) expect(c byte, what string) error {
	got, err := s.peek()
	if err != nil {
		return err
	}
	if got != c {
		return s.syntaxHere("found %q, want %s", got, what)
	}
	s.next()
	return nil
}

// atEnd reports whether only whitespace remains in the stream.
func (s *scanner) atEnd() (bool, error) {
	err := s.in.Skip(&s.frame)
	if err == io.EOF {
		return true, nil
	}
	return false, err
}

// value scans the next value and returns its bytes, valid until the next call, and
// its offset in the stream. outer is how deeply the value is nested, so that the
// whole document obeys the nesting bound.
func (s *scanner) value(outer int) ([]byte, int64, error) {
	s.frame.MaxDepth = jsonx.MaxDepth - outer
	raw, off, err := s.in.Next(&s.frame)
	switch {
	case err == io.EOF:
		return nil, off, io.ErrUnexpectedEOF
	case err == stream.ErrTooLarge, err == nil && int64(len(raw)) > s.limit:
		return nil, off, errValueTooLarge
	}
	return raw, off, err
}
