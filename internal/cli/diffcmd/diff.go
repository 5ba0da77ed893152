package diffcmd

import (
	"context"
	"fmt"

	"github.com/podwatch/podwatch/internal/cli/base"
	"github.com/podwatch/podwatch/internal/rundiff"
)

const diffUsage = `Usage: podwatch diff A B [--rv rank|exact]

Compares two runs of a watch client and prints where they first part, then
what each holds that the other does not. A and B are each a recording (a
fixture folder or a recording file, JSON, protobuf or CBOR bodies alike) or a
JSON trace (--trace-format json). Each run is read as its requests (shape,
resourceVersion asked, status), its watch events and the states its store
was pushed; a recording's pushes are those its client's store was pushed,
its bodies applied in recorded order to podwatch's undelta store.

Where the runs part, it also says whether they end in the same state all
the same: a run that relisted past some changes saw fewer versions of its
pods than one that watched each, and may end with the same pods at the same
versions. A recording's exchanges, and the events of each, are counted from
1, as a trace numbers its requests.

--rv rank (the default) compares each resourceVersion by its rank among its
own run's object and pushed versions, so two recordings of one scenario on
two clusters line up; --rv exact compares them as they are.

The exit status is 0 when the runs are equivalent (the same items in the
same order), 1 when they differ, 2 when an input cannot be read, 130 when
it is interrupted (Ctrl-C) before it is done.
`

// runsDiffer ends a diff whose runs differ: exit 1.
type runsDiffer struct{ a, b string }

func (e *runsDiffer) Error() string   { return fmt.Sprintf("%s and %s differ", e.a, e.b) }
func (e *runsDiffer) ExitStatus() int { return base.ExitError }

// unreadableRun is an input diff cannot read: exit 2, as for a bad command
// line, since there is no answer to give.
type unreadableRun struct{ err error }

func (e *unreadableRun) Error() string   { return "diff: " + e.err.Error() }
func (e *unreadableRun) Unwrap() error   { return e.err }
func (e *unreadableRun) ExitStatus() int { return base.ExitUsage }

// Run runs podwatch diff with args, those after the command's name. Its
// job is a report: interrupted, it ends with exit 130 (base.Verdict).
func Run(ctx context.Context, e base.Env, args []string) error {
	return base.Verdict(ctx, run(e, args))
}

func run(e base.Env, args []string) error {
	c := base.NewCommand("diff", diffUsage)
	rv := c.Flags.String("rv", string(rundiff.RVRank), "compare resourceVersions by `rank` or exact")
	pos, err := c.Parse(e.Stdout, args)
	if err != nil {
		return err
	}
	switch {
	case len(pos) != 2:
		return base.Usagef(c.Name, "want two runs to compare, got %d arguments", len(pos))
	case *rv != string(rundiff.RVRank) && *rv != string(rundiff.RVExact):
		return base.Usagef(c.Name, "--rv %q: want rank or exact", *rv)
	}
	runs := make([]*rundiff.Run, 2)
	for i, p := range pos {
		if runs[i], err = rundiff.Load(p); err != nil {
			return &unreadableRun{err: err}
		}
	}
	res, err := rundiff.Compare(runs[0], runs[1], rundiff.Options{RV: rundiff.RVMode(*rv)})
	if err != nil {
		return err
	}
	if err := rundiff.WriteText(e.Stdout, res); err != nil {
		return err
	}
	if !res.Equivalent() {
		return &runsDiffer{a: pos[0], b: pos[1]}
	}
	return nil
}
