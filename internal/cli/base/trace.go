package base

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/podwatch/podwatch/internal/timing"
	"github.com/podwatch/podwatch/internal/trace"
	"github.com/podwatch/podwatch/internal/trace/clients"
	"github.com/podwatch/podwatch/internal/trace/gap"
	"github.com/podwatch/podwatch/internal/trace/h2tap"
	"github.com/podwatch/podwatch/internal/trace/page"
	"github.com/podwatch/podwatch/internal/trace/stall"
	"github.com/podwatch/podwatch/internal/trace/text"
	"github.com/podwatch/podwatch/internal/trace/versions"
)

// TraceFlags are the flags of the protocol trace (internal/trace).
type TraceFlags struct {
	on    bool
	full  bool // --trace=full: every explanation every time
	width int  // --trace-width, when widthGiven
	// widthGiven is whether --trace-width was given (0 then means never
	// wrap, rather than wrap to the terminal).
	widthGiven bool
	file       string
	format     string
	html       string
	// Proxy makes the trace a proxy's: it tells what its clients' requests
	// reveal (package clients), and audits their relists.
	Proxy bool
	// StallAfter is how long a watch may be silent before the trace and
	// the progress line tell it (stall.Options.After).
	StallAfter time.Duration
	// Run is what the HTML page records of the run (its Date is set when
	// the trace opens).
	Run page.Run
	// Clock stamps the steps (trace.Options.Clock): a replay's own clock;
	// nil is Env.Now.
	Clock func() time.Time
	// StallClock times the stall check (stall.Options.Clock): a
	// replay's own clock; nil is a ticker on the wall clock.
	StallClock timing.TimerClock
	// Diff is --diff (versions.Options.Diff; watch's -o json too).
	Diff DiffFlag
	// Ledger, when set, tells the gap audit what a replay's recording
	// knows (gap.New).
	Ledger gap.Ledger
	// Also are sinks the command adds to the trace the flags ask for, if
	// they ask for one: the command's own use of what the trace tells.
	Also []trace.Sink
}

// Register defines the trace flags on c, --stall-after and --diff included.
func (f *TraceFlags) Register(c *Command) {
	fs := c.Flags
	fs.Var(traceMode{f}, "trace", "narrate the protocol on stderr: each request with its parameters explained, responses, body reads, HTTP/2 frames, events, the reflector's decisions and why, each push;"+
		" each thing is explained in full the first time and briefly after, --trace=full explains it every time")
	fs.IntVar(&f.width, "trace-width", 0, "wrap the text trace at word boundaries to this many `columns` (at least 40; 0: never wrap);"+
		" default: the terminal's width when the trace goes to a terminal, else $COLUMNS when set and the trace goes to stderr, else no wrapping")
	fs.StringVar(&f.file, "trace-file", "", "write the trace to this `file` instead of stderr (implies --trace)")
	fs.StringVar(&f.format, "trace-format", "text", "trace `format`: text (coloured on a terminal) or json (one object per line, schema in docs/TRACE.md); without --trace-file it implies --trace")
	fs.StringVar(&f.html, "trace-html", "", "when the command ends, write a self-contained HTML page with a timeline of the run (pan and zoom) and what was run to this `file`")
	fs.DurationVar(&f.StallAfter, "stall-after", stall.DefaultAfter, "tell a watch silent for this `duration` (no byte) in the trace and the progress line, with a verdict: quiet, overdue (a bookmark should have come) or dead (past its timeoutSeconds); 0 turns it off")
	f.Diff.register(c)
}

// Check refuses trace flags that do not go together.
func (f *TraceFlags) Check(c *Command) error {
	switch f.format {
	case "text", "json":
	default:
		return Usagef(c.Name, "--trace-format %q: want text or json", f.format)
	}
	if c.Set("trace-format") && !f.on && f.file == "" {
		// A format asks for a trace: the one on stderr, as --trace gives.
		f.on = true
	}
	f.widthGiven = c.Set("trace-width")
	if f.widthGiven && !f.on && f.file == "" {
		return Usagef(c.Name, "--trace-width applies to --trace or --trace-file")
	}
	if f.width < 0 || f.width > 0 && f.width < minTraceWidth {
		return Usagef(c.Name, "--trace-width %d: want 0 (never wrap) or at least %d columns", f.width, minTraceWidth)
	}
	if f.file != "" && f.file == f.html {
		return Usagef(c.Name, "--trace-file and --trace-html name the same file")
	}
	if f.StallAfter < 0 {
		return Usagef(c.Name, "--stall-after %s: want a duration of 0 (off) or more", f.StallAfter)
	}
	f.Run.Command = commandLine(c)
	return nil
}

// Written tells, on log, the files the trace was written to: nothing
// else says where they went. Call it once the trace is closed, without
// error.
func (f *TraceFlags) Written(log *Logger) {
	if f.file != "" {
		log.Printf("podwatch: wrote the trace to %s", f.file)
	}
	if f.html != "" {
		log.Printf("podwatch: wrote the trace's page to %s", f.html)
	}
}

// Enabled reports whether any trace is asked for.
func (f *TraceFlags) Enabled() bool { return f.on || f.file != "" || f.html != "" }

// TellsOnStderr reports whether the trace is written on stderr, where it
// tells each of the reflector's failures (a backoff, a fallback list) with
// its error: it owns those warnings then, and the session does not print
// them a second time.
func (f *TraceFlags) TellsOnStderr() bool { return f.on && f.file == "" }

// Open builds the session's tracer from f, or returns nil when no trace
// is asked for. Files are created now, so that a bad path fails before the
// watch begins. The returned close tells the end of the trace, writes the
// HTML page and closes the files; it must be called once the session is over.
func (f *TraceFlags) Open(e Env, log *Logger) (*trace.Tracer, func() error, error) {
	if !f.Enabled() {
		return nil, func() error { return nil }, nil
	}
	var sinks []trace.Sink
	var files []*os.File
	closeFiles := func() error {
		var errs []error
		for _, fl := range files {
			if err := fl.Close(); err != nil {
				errs = append(errs, fmt.Errorf("trace: %w", err))
			}
		}
		return errors.Join(errs...)
	}
	create := func(path string) (*os.File, error) {
		fl, err := os.Create(path)
		if err != nil {
			closeFiles()
			return nil, fmt.Errorf("trace: %w", err)
		}
		files = append(files, fl)
		return fl, nil
	}
	switch {
	case f.file != "":
		fl, err := create(f.file)
		if err != nil {
			return nil, nil, err
		}
		sinks = append(sinks, f.sink(fl, false, f.width))
	case f.on:
		color := e.StderrIsTerminal() && os.Getenv("NO_COLOR") == ""
		sinks = append(sinks, f.sink(logWriter{log}, color, f.stderrWidth(e)))
	}
	if f.html != "" {
		fl, err := create(f.html)
		if err != nil {
			return nil, nil, err
		}
		run := f.Run
		run.Date = e.Now()
		sinks = append(sinks, page.New(fl, run))
	}
	sinks = append(sinks, f.Also...)
	clock := e.Now
	if f.Clock != nil {
		clock = f.Clock
	}
	tr := trace.New(trace.Options{Sinks: sinks, Clock: clock, Analyses: f.analyses(), Tap: h2tap.New()})
	return tr, func() error { return errors.Join(tr.Close(), closeFiles()) }, nil
}

// analyses are what the trace adds to the steps it records: a proxy's
// clients' decisions, the version diffs (--diff, and a proxy's record of
// what each client was sent, which reads those decisions), the gap audit,
// the stall check.
func (f *TraceFlags) analyses() []trace.Analysis {
	audit := gap.New(f.Ledger)
	var as []trace.Analysis
	if f.Proxy {
		as = append(as, clients.New())
	}
	if f.Proxy || f.Diff.On() {
		as = append(as, versions.New(versions.Options{Diff: f.Diff.Mode, Relisted: audit.Relisted}))
	}
	as = append(as, audit)
	if f.StallAfter > 0 {
		as = append(as, stall.New(stall.Options{After: f.StallAfter, Clock: f.StallClock}))
	}
	return as
}

func (f *TraceFlags) sink(w interface{ Write([]byte) (int, error) }, color bool, width int) trace.Sink {
	if f.format == "json" {
		return trace.JSON(w)
	}
	return text.New(w, text.Options{Color: color, Width: width, ExplainOnce: !f.full})
}

// minTraceWidth is the narrowest --trace-width: the time and tag take 25
// columns.
const minTraceWidth = 40

// stderrWidth is the width the text trace on stderr wraps at: --trace-width,
// else the width of stderr's own lines (Env.StderrWidth).
func (f *TraceFlags) stderrWidth(e Env) int {
	if f.widthGiven {
		return f.width
	}
	return e.StderrWidth()
}

// traceMode is --trace: a switch (--trace, --trace=false) that also takes
// "full" (--trace=full), every explanation told every time.
type traceMode struct{ f *TraceFlags }

func (m traceMode) IsBoolFlag() bool { return true }

func (m traceMode) String() string {
	switch {
	case m.f == nil || !m.f.on:
		return "false"
	case m.f.full:
		return "full"
	}
	return "true"
}

func (m traceMode) Set(v string) error {
	if v == "full" {
		m.f.on, m.f.full = true, true
		return nil
	}
	on, err := strconv.ParseBool(v)
	if err != nil {
		return errors.New(`want true, false or full`)
	}
	m.f.on, m.f.full = on, false
	return nil
}

// logWriter sends the trace on stderr through the logger, so that it never
// runs into the progress line or a log line.
type logWriter struct{ log *Logger }

func (w logWriter) Write(p []byte) (int, error) {
	w.log.Printf("%s", strings.TrimSuffix(string(p), "\n"))
	return len(p), nil
}
