package checkcmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/podwatch/podwatch/internal/check"
	"github.com/podwatch/podwatch/internal/cli/base"
	"github.com/podwatch/podwatch/internal/fixture"
	"github.com/podwatch/podwatch/rest"
)

const checkUsage = `Usage: podwatch check [connection flags] [--node N | --namespace NS] [--only NAME,...]
                      [--timeout D] [--write] [-o text|json]

Runs a battery of named checks against an apiserver (or a fake one, or a
proxy in front of either) and says, for each, whether the server is a
faithful watch server: lists (consistent, resourceVersion 0, NotOlderThan,
Exact, paging, expired continue tokens), watches (from a version, both path
forms, timeoutSeconds, versions that never go back, 410 for too old a
version), bookmarks, the streaming watch list and its initial-events-end
bookmark, framing, content types, and error answers. docs/CHECKS.md lists
every check, what it proves and the failures it catches.

One line per check: pass, fail (with its evidence: the request, what came
back, the frame at fault, and what the protocol requires) or not-applicable
(with the reason). -o json prints one object per line:
  {"name":...,"result":"pass|fail|not-applicable","evidence":{...},...}
The exit status is 0 when no check that applies fails, 1 when one does, or
when the battery cannot start (a server that gives no answer at all is one
error naming the request, not every check failing for the same reason),
and 130 when it is interrupted (Ctrl-C): the checks it did not finish say
so. When a failure is a podwatch replay server's refusal of a scope its
recording does not hold, the check says which flags ask for one it holds.

The checks only read, unless --write lets them create, change and delete
throwaway pods (podwatch-check-*, in --namespace or default, bound to
--node) to cause changes; those are deleted before the command ends.
No credential appears in the output.
`

// checksFailed is the error of a run in which a check failed: exit 1. It
// ends with the remedies the failures carried, each once.
type checksFailed struct{ names, remedies []string }

func (e *checksFailed) Error() string {
	s := fmt.Sprintf("%d %s failed: %s", len(e.names), base.Plural(len(e.names), "check", "checks"), strings.Join(e.names, ", "))
	for _, r := range e.remedies {
		s += "; " + r
	}
	return s
}

// Run runs podwatch check with args, those after the command's name. Its
// job is a verdict: interrupted, it ends with exit 130 (base.Verdict).
func Run(ctx context.Context, e base.Env, args []string) error {
	return base.Verdict(ctx, run(ctx, e, args))
}

func run(ctx context.Context, e base.Env, args []string) error {
	c := base.NewCommand("check", checkUsage+"\nThe checks, in the order they run (for --only):\n"+wrapNames(check.Names(), 76))
	var conn base.ConnFlags
	conn.Register(c)
	node := c.Flags.String("node", "", "check the pods bound to this `node`, as its kubelet sees them")
	ns := c.Flags.String("namespace", "", "check the pods of this `namespace` only")
	c.Alias("n", "namespace")
	only := c.Flags.String("only", "", "run only these checks (comma-separated `names`), and those they build on")
	timeout := c.Flags.Duration("timeout", 5*time.Minute, "end the whole battery within this `duration`")
	write := c.Flags.Bool("write", false, "create, change and delete throwaway pods to cause changes")
	var output base.OutputFlag
	output.Register(c)
	watchSecs := c.Flags.Int64("watch-seconds", 5, "the timeoutSeconds of the checks' watches (more than 2: the apiserver's bookmark comes 2 s before)")
	if err := c.ParseNoArgs(e.Stdout, args); err != nil {
		return err
	}
	if err := output.Check(c); err != nil {
		return err
	}
	switch {
	case *node != "" && *ns != "":
		return base.Usagef(c.Name, "--node and --namespace cannot be combined")
	case *timeout <= 0:
		return base.Usagef(c.Name, "--timeout %v: must be positive", *timeout)
	case *watchSecs <= 0:
		return base.Usagef(c.Name, "--watch-seconds %d: must be positive", *watchSecs)
	}
	var names []string
	if *only != "" {
		names = strings.Split(*only, ",")
	}
	cfg, err := conn.RESTConfig(c.Name, e)
	if err != nil {
		return err
	}
	p := checkPrinter{w: e.Stdout, json: output.JSON()}
	var host *url.URL // for the remedies, which may name it
	if client, err := rest.NewClient(cfg); err == nil {
		host = client.Host()
	}
	outs, err := check.Run(ctx, check.Options{
		Config: cfg, Node: *node, Namespace: *ns, Only: names, Timeout: *timeout,
		Write: *write, WatchSeconds: *watchSecs, Report: p.print, Remedy: scopeRemedy,
	})
	var unknown *check.UnknownCheckError
	var leftover *check.CleanupError
	var unreachable *check.UnreachableError
	switch {
	case errors.As(err, &unknown):
		return base.Usagef(c.Name, "--only: %v", err)
	case errors.As(err, &leftover):
		fmt.Fprintln(e.Stderr, base.Fold("podwatch: ", "warning: "+base.OneLine(err.Error()), e.StderrWidth()))
	case errors.As(err, &unreachable):
		return base.WithConnRemedy(err, host)
	case err != nil:
		return err
	}
	if p.err != nil {
		return p.err
	}
	fmt.Fprintln(e.Stderr, tally(outs))
	var failed checksFailed
	for _, o := range outs {
		if o.Result != check.Fail {
			continue
		}
		failed.names = append(failed.names, o.Name)
		if r := o.Evidence.Remedy; r != "" && !slices.Contains(failed.remedies, r) {
			failed.remedies = append(failed.remedies, r)
		}
	}
	if len(failed.names) > 0 {
		return &failed
	}
	return nil
}

// scopeRemedy is the check's Options.Remedy: when a podwatch replay server
// refused a request for a scope its recording does not hold, which scope
// it holds and the flags of check that ask for it.
func scopeRemedy(err error) string {
	scopes := fixture.RecordedScopes(err)
	if scopes == nil {
		return ""
	}
	what := make([]string, len(scopes))
	var use []string
	for i, sc := range scopes {
		what[i] = sc.String()
		if f := checkFlags(sc); f != "" {
			use = append(use, f)
		}
	}
	s := "the server's recording holds only the pods of " + strings.Join(what, " or ")
	if len(use) == 0 {
		return s + ", which no flag of check asks for"
	}
	return s + ": use " + strings.Join(use, " or ")
}

// checkFlags are the flags of check that ask for the pods of sc, "" when
// none do: check reads one node's pods or one namespace's, with no other
// selector.
func checkFlags(sc fixture.Scope) string {
	node, ok := sc.Node()
	switch {
	case sc.LabelSelector != "":
		return ""
	case ok && sc.FieldSelector == "spec.nodeName="+node && sc.Namespace == "":
		return "--node " + node
	case sc.FieldSelector == "" && sc.Namespace != "":
		return "--namespace " + sc.Namespace
	case sc.FieldSelector == "" && sc.Namespace == "":
		return "neither --node nor --namespace"
	}
	return ""
}

// checkPrinter prints each outcome as it comes.
type checkPrinter struct {
	w    io.Writer
	json bool
	err  error
}

func (p *checkPrinter) print(o check.Outcome) {
	if p.err != nil {
		return
	}
	var line []byte
	if p.json {
		line, p.err = json.Marshal(o)
		if p.err != nil {
			return
		}
	} else {
		line = []byte(checkLine(o))
	}
	_, p.err = p.w.Write(append(line, '\n'))
}

// checkLine is an outcome on one line: the verdict, the name, what was seen;
// for a failure also what is required and the exchanges.
func checkLine(o check.Outcome) string {
	s := o.Evidence.Summary
	if o.Evidence.Remedy != "" {
		s += " | remedy: " + o.Evidence.Remedy
	}
	if o.Result == check.Fail {
		s += " | requires: " + o.Evidence.Requires
		for i := range o.Evidence.Exchanges {
			s += " | " + o.Evidence.Exchanges[i].String()
		}
	}
	return fmt.Sprintf("%-14s %-29s %s", o.Result, o.Name, base.OneLine(s))
}

func tally(outs []check.Outcome) string {
	n := map[check.Result]int{}
	for _, o := range outs {
		n[o.Result]++
	}
	return fmt.Sprintf("podwatch check: %d checks: %d pass, %d fail, %d not applicable", len(outs), n[check.Pass], n[check.Fail], n[check.NotApplicable])
}

// wrapNames lists names, comma-separated, in indented lines of at most
// width columns.
func wrapNames(names []string, width int) string {
	var b strings.Builder
	line := " "
	for i, n := range names {
		if i < len(names)-1 {
			n += ","
		}
		if len(line)+1+len(n) > width {
			b.WriteString(line + "\n")
			line = " "
		}
		line += " " + n
	}
	b.WriteString(line + "\n")
	return b.String()
}
