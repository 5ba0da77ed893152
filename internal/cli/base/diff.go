package base

import (
	"fmt"

	"github.com/podwatch/podwatch/internal/trace"
)

// DiffFlag is --diff: alone it asks for each MODIFIED event's changes
// without metadata.managedFields and metadata.resourceVersion, --diff=all
// with them, --diff=false (the default) for none.
type DiffFlag struct{ Mode trace.DiffMode }

func (f *DiffFlag) register(c *Command) {
	c.Flags.Var(f, "diff", "with a trace or -o json, show what each MODIFIED event changed, as JSON patch operations, without metadata.managedFields and metadata.resourceVersion (--diff=all: with them)")
}

func (f *DiffFlag) IsBoolFlag() bool { return true }

func (f *DiffFlag) String() string {
	if f == nil {
		return "false"
	}
	switch f.Mode {
	case trace.DiffFields:
		return "true"
	case trace.DiffAll:
		return "all"
	}
	return "false"
}

func (f *DiffFlag) Set(s string) error {
	switch s {
	case "true", "fields":
		f.Mode = trace.DiffFields
	case "all":
		f.Mode = trace.DiffAll
	case "false":
		f.Mode = trace.DiffOff
	default:
		return fmt.Errorf("want --diff, --diff=all or --diff=false")
	}
	return nil
}

// On says whether --diff asks for changes.
func (f *DiffFlag) On() bool { return f.Mode != trace.DiffOff }
