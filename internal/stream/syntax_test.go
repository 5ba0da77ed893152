package stream_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/podwatch/podwatch/internal/stream"
	"github.com/podwatch/podwatch/rest/cborwire"
	"github.com/podwatch/podwatch/rest/jsonx"
	"github.com/podwatch/podwatch/rest/protowire"
)

// AtStream moves the syntax error of each wire format, wrapped or not, by
// the base it is given and keeps its type and message; other errors are
// left to the caller.
func TestAtStreamMovesEveryFormat(t *testing.T) {
	for _, err := range []error{
		&jsonx.SyntaxError{Offset: 7, Msg: "m"},
		&protowire.SyntaxError{Offset: 7, Msg: "m"},
		&cborwire.SyntaxError{Offset: 7, Msg: "m"},
	} {
		moved, ok := stream.AtStream(fmt.Errorf("decode pod: %w", err), 100)
		if !ok {
			t.Fatalf("%T: not found", err)
		}
		want := fmt.Sprint(err.(interface{ Shift(int64) error }).Shift(100))
		if got := moved.Error(); got != want || fmt.Sprintf("%T", moved) != fmt.Sprintf("%T", err) {
			t.Errorf("%T moved by 100: %T %q, want %q", err, moved, got, want)
		}
	}
	var se *jsonx.SyntaxError
	moved, _ := stream.AtStream(&jsonx.SyntaxError{Offset: 7, Msg: "m"}, 100)
	if !errors.As(moved, &se) || se.Offset != 107 {
		t.Errorf("jsonx error moved by 100: %v, want offset 107", moved)
	}
	if _, ok := stream.AtStream(errors.New("other"), 100); ok {
		t.Error("a plain error was taken for a syntax error")
	}
}
