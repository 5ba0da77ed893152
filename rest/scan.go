package rest

import (
	"errors"
	"fmt"
	"io"

	"github.com/podwatch/podwatch/rest/jsonx"
)

// scanner frames JSON values out of a stream. It checks only what framing needs
// (strings, and brackets that match); whoever gets a value's bytes checks the rest.
// It holds the value being captured and one read's worth of data, never the stream.
type scanner struct {
	r     io.Reader
	buf   []byte
	pos   int   // next unread byte
	end   int   // end of buffered data
	mark  int   // start of the value being captured, or -1
	base  int64 // stream offset of buf[0]
	err   error // sticky read error, io.EOF included
	limit int64 // most bytes one captured value may take
	frame frameState
}

const (
	scanBufSize = 64 << 10
	// minRead is the least free space worth a Read call.
	minRead = 4 << 10
	// maxDepth bounds nesting as jsonx and encoding/json do.
	maxDepth = 10000
)

// errValueTooLarge reports a captured value over the scanner's limit; callers turn
// it into a typed error that says which value.
var errValueTooLarge = errors.New("value too large")

func newScanner(r io.Reader, limit int64) *scanner {
	return &scanner{r: r, buf: make([]byte, scanBufSize), mark: -1, limit: limit}
}

// offset is the stream offset of the next unread byte.
func (s *scanner) offset() int64 { return s.base + int64(s.pos) }

func (s *scanner) syntaxAt(pos int, format string, args ...any) error {
	return &jsonx.SyntaxError{Offset: s.base + int64(pos), Msg: fmt.Sprintf(format, args...)}
}

// fill reads more data, keeping the value being captured (or else only what is
// unread). It returns false when the stream is done; s.err says why.
func (s *scanner) fill() bool {
	for tries := 0; s.err == nil; tries++ {
		if tries == 100 {
			s.err = io.ErrNoProgress
			break
		}
		s.makeRoom()
		n, err := s.r.Read(s.buf[s.end:])
		s.end += n
		if err != nil {
			s.err = err
		}
		if n > 0 {
			return true
		}
	}
	return false
}

func (s *scanner) makeRoom() {
	if len(s.buf)-s.end >= minRead {
		return
	}
	keep := s.pos
	if s.mark >= 0 {
		keep = s.mark
	}
	if keep > 0 {
		n := copy(s.buf, s.buf[keep:s.end])
		s.base += int64(keep)
		s.pos -= keep
		s.end = n
		if s.mark >= 0 {
			s.mark = 0
		}
	}
	if len(s.buf)-s.end < minRead {
		// Only a captured value fills the buffer; value() bounds how far it grows.
		nb := make([]byte, 2*len(s.buf))
		copy(nb, s.buf[:s.end])
		s.buf = nb
	}
}

// readErr is what running out of input means inside a value.
func (s *scanner) readErr() error {
	if s.err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return s.err
}

// needMore gets more data for the value being scanned, enforcing the limit on it.
func (s *scanner) needMore() error {
	if s.mark >= 0 && int64(s.end-s.mark) > s.limit {
		return errValueTooLarge
	}
	if !s.fill() {
		return s.readErr()
	}
	return nil
}

// peek skips whitespace and returns the next byte without consuming it.
func (s *scanner) peek() (byte, error) {
	for {
		for s.pos < s.end {
			switch c := s.buf[s.pos]; c {
			case ' ', '\t', '\n', '\r':
				s.pos++
			default:
				return c, nil
			}
		}
		if !s.fill() {
			return 0, s.readErr()
		}
	}
}

// expect consumes the next non-space byte, which must be c.
func (s *scanner) expect(c byte, what string) error {
	got, err := s.peek()
	if err != nil {
		return err
	}
	if got != c {
		return s.syntaxAt(s.pos, "found %q, want %s", got, what)
	}
	s.pos++
	return nil
}

// atEnd reports whether only whitespace remains in the stream.
func (s *scanner) atEnd() (bool, error) {
	_, err := s.peek()
	if err == io.ErrUnexpectedEOF {
		return true, nil
	}
	return false, err
}

// value scans the next value and returns its bytes, valid until the next call, and
// its offset in the stream. outer is how deeply the value is nested, so that the
// whole document obeys the nesting bound.
func (s *scanner) value(outer int) ([]byte, int64, error) {
	c, err := s.peek()
	if err != nil {
		return nil, 0, err
	}
	start := s.offset()
	s.mark = s.pos
	defer func() { s.mark = -1 }()
	switch c {
	case '{', '[', '"':
		err = s.scanComposite(maxDepth - outer)
	default:
		err = s.scanScalar()
	}
	if err != nil {
		return nil, 0, err
	}
	if int64(s.pos-s.mark) > s.limit {
		return nil, 0, errValueTooLarge
	}
	return s.buf[s.mark:s.pos], start, nil
}

// scanComposite scans a string, object or array nested at most depth deep.
func (s *scanner) scanComposite(depth int) error {
	f := &s.frame
	f.reset(depth, s.buf[s.pos])
	for {
		end, done, err := f.scan(s.buf[:s.end], s.pos)
		if err != nil {
			var fe *frameError
			if errors.As(err, &fe) {
				return s.syntaxAt(fe.pos, "%s", fe.msg)
			}
			return err
		}
		s.pos = end
		if done {
			return nil
		}
		if err := s.needMore(); err != nil {
			return err
		}
	}
}

// scanScalar scans a number or literal up to the byte after it. The list object
// is still open, so running out of input here is a truncation.
func (s *scanner) scanScalar() error {
	for {
		for s.pos < s.end {
			if !scalarByte(s.buf[s.pos]) {
				if s.pos == s.mark {
					return s.syntaxAt(s.pos, "found %q, want a value", s.buf[s.pos])
				}
				return nil
			}
			s.pos++
		}
		if err := s.needMore(); err != nil {
			return err
		}
	}
}

func scalarByte(c byte) bool {
	return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'E'
}
