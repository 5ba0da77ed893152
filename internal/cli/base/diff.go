package base

import (
	"fmt"

	"github.com/podwatch/podwatch/internal/trace/versions"
)

// DiffFlag is --diff: alone it asks for each MODIFIED event's changes
// without metadata.managedFields and metadata.resourceVersion, --diff=all
// with them, --diff=false (the default) for none.
type DiffFlag struct{ Mode versions.DiffMode }

func (f *DiffFlag) register(c *Command) {
	c.Flags.Var(f, "diff", "with a trace or -o json, show what each MODIFIED event changed, as JSON patch operations, without metadata.managedFields and metadata.resourceVersion (--diff=all: with them)")
}

func (f *DiffFlag) IsBoolFlag() bool { return true }

func (f *DiffFlag) String() string {
	if f == nil {
		return "false"
	}
	switch f.Mode {
	case versions.DiffFields:
		return "true"
	case versions.DiffAll:
		return "all"
	}
	return "false"
}

func (f *DiffFlag) Set(s string) error {
	switch s {
	case "true", "fields":
		f.Mode = versions.DiffFields
	case "all":
		f.Mode = versions.DiffAll
	case "false":
		f.Mode = versions.DiffOff
	default:
		return fmt.Errorf("want --diff, --diff=all or --diff=false")
	}
	return nil
}

// On says whether --diff asks for changes.
func (f *DiffFlag) On() bool { return f.Mode != versions.DiffOff }
