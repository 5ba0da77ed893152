package rundiff

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/podwatch/podwatch/internal/fixture"
)

// InputError is an input the diff cannot read, and where: the file, and
// the line of a trace when it is one line. A recording that does not read
// is a *fixture.FormatError, which names its exchange, read and byte.
type InputError struct {
	Path string
	Line int // 0 when not one line
	Err  error
}

func (e *InputError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %v", e.Path, e.Line, e.Err)
	}
	return fmt.Sprintf("%s: %v", e.Path, e.Err)
}

func (e *InputError) Unwrap() error { return e.Err }

// Load reads path as a run: a fixture folder, a recording file, or a JSON
// trace. A trace is one object a line, so a first line that is a whole
// object with "kind" is a trace's; one with "exchanges" is a compact
// recording; a first line that is not a whole object opens a recording
// written over many lines. Errors are *InputError, or a
// *fixture.FormatError (naming the file, exchange, read and byte) for a
// recording that does not read.
func Load(path string) (*Run, error) {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		path = filepath.Join(path, fixture.FileName)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &InputError{Path: path, Err: err}
	}
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return nil, &InputError{Path: path, Line: 1, Err: errNeither}
	}
	first, _, _ := bytes.Cut(trimmed, []byte("\n"))
	var keys map[string]json.RawMessage
	if json.Unmarshal(first, &keys) == nil {
		switch {
		case keys["kind"] != nil:
			return ReadTrace(path, bytes.NewReader(data))
		case keys["exchanges"] == nil:
			return nil, &InputError{Path: path, Line: 1, Err: errNeither}
		}
	}
	rec, err := fixture.Parse(data)
	if err != nil {
		var fe *fixture.FormatError
		if errors.As(err, &fe) {
			fe.Path = path
		}
		return nil, err
	}
	return FromRecording(path, rec)
}

var errNeither = errors.New(`neither a recording (an object with "exchanges") nor a JSON trace (an object a line, each with "kind")`)
