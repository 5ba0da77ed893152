package cli

import (
	"fmt"

	"github.com/podwatch/podwatch/internal/trace"
)

// diffFlag is --diff: alone it asks for each MODIFIED event's changes
// without metadata.managedFields and metadata.resourceVersion, --diff=all
// with them, --diff=false (the default) for none.
type diffFlag struct{ mode trace.DiffMode }

func (f *diffFlag) register(c *command) {
	c.fs.Var(f, "diff", "with a trace or -o json, show what each MODIFIED event changed, as JSON patch operations, without metadata.managedFields and metadata.resourceVersion (--diff=all: with them)")
}

func (f *diffFlag) IsBoolFlag() bool { return true }

func (f *diffFlag) String() string {
	if f == nil {
		return "false"
	}
	switch f.mode {
	case trace.DiffFields:
		return "true"
	case trace.DiffAll:
		return "all"
	}
	return "false"
}

func (f *diffFlag) Set(s string) error {
	switch s {
	case "true", "fields":
		f.mode = trace.DiffFields
	case "all":
		f.mode = trace.DiffAll
	case "false":
		f.mode = trace.DiffOff
	default:
		return fmt.Errorf("want --diff, --diff=all or --diff=false")
	}
	return nil
}

// on says whether --diff asks for changes.
func (f *diffFlag) on() bool { return f.mode != trace.DiffOff }
