package check

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/podwatch/podwatch/rest"
)

// Result is a check's verdict.
type Result string

// The three verdicts.
const (
	Pass          Result = "pass"
	Fail          Result = "fail"
	NotApplicable Result = "not-applicable"
)

// past says what a check that gave r did, to follow "which": a verdict
// read as a word of the sentence ("which was fail") would not be English.
func (r Result) past() string {
	switch r {
	case Pass:
		return "passed"
	case Fail:
		return "failed"
	case NotApplicable:
		return "did not apply"
	}
	return "gave " + string(r)
}

// Check is one named check of the battery.
type Check struct {
	Name string
	// Proves says what a pass shows about the server.
	Proves string
	// Since is the Kubernetes version or feature gate the behaviour depends on.
	Since string
	// After names the checks this one builds on: unless each passed, this
	// one is not applicable.
	After []string
	run   func(ctx context.Context, e *env) Outcome
	// waits says the check may wait Options.ExpiryWait for the server's
	// history to move on, beyond the time of its requests.
	waits bool
}

// Outcome is what running one check found.
type Outcome struct {
	Name     string   `json:"name"`
	Result   Result   `json:"result"`
	Evidence Evidence `json:"evidence"`
	Proves   string   `json:"proves"`
	Since    string   `json:"since"`
	After    []string `json:"depends_on,omitempty"`
	// refused is the failure of the request that failed the check, for
	// Options.Remedy.
	refused error
}

// Options configure Run. Config is required; the rest have defaults.
type Options struct {
	// Config reaches the server. Its ContentType is ignored (each check
	// asks for the type it tests) and its MaxRetries replaced by none: the
	// evidence is what the server answered, not what a retry got.
	Config rest.Config
	// Namespace narrows every request to one namespace; "" is all of them
	// (writes then go to "default").
	Namespace string
	// Node narrows every list and watch to spec.nodeName=Node, as a
	// kubelet's; throwaway pods are bound to it.
	Node string
	// Only runs these checks (and those they build on); empty runs all.
	Only []string
	// Timeout bounds the whole battery; default 5 minutes.
	Timeout time.Duration
	// Write lets checks create, change and delete throwaway pods.
	Write bool
	// WatchSeconds is the timeoutSeconds of the checks' watches; default 5.
	// The server's pre-timeout bookmark needs more than 2.
	WatchSeconds int64
	// Grace is how long after its timeoutSeconds a watch may take to end;
	// default 10 s.
	Grace time.Duration
	// ExpiryWait bounds how long list-continue-expired waits for the
	// server's history to pass a continue token's snapshot; default 2
	// minutes (or what is left of Timeout).
	ExpiryWait time.Duration
	// Report, when set, is told each Outcome as soon as it is known, in
	// battery order.
	Report func(Outcome)
	// Remedy, when set, is asked about the failure of each request that
	// failed a check; what it answers (what the user could change, such
	// as the scope a server says it serves) becomes the evidence's Remedy.
	Remedy func(error) string
}

func (o Options) withDefaults() Options {
	if o.Timeout <= 0 {
		o.Timeout = 5 * time.Minute
	}
	if o.WatchSeconds <= 0 {
		o.WatchSeconds = 5
	}
	if o.Grace <= 0 {
		o.Grace = 10 * time.Second
	}
	if o.ExpiryWait <= 0 {
		o.ExpiryWait = 2 * time.Minute
	}
	return o
}

// UnknownCheckError is an Options.Only name no check has.
type UnknownCheckError struct{ Name string }

func (e *UnknownCheckError) Error() string {
	return fmt.Sprintf("no check is named %q (known: %s)", e.Name, strings.Join(Names(), ", "))
}

// Checks returns the battery, in the order Run runs it.
func Checks() []Check { return slices.Clone(battery) }

// Names returns the names of the battery's checks, in order.
func Names() []string {
	names := make([]string, len(battery))
	for i, c := range battery {
		names[i] = c.Name
	}
	return names
}

// Run runs the battery (or Options.Only and what it builds on) against the
// server and returns each check's Outcome in battery order. It returns
// within Options.Timeout (plus the time to delete throwaway pods) whatever
// the server does, and soon after ctx ends; a check cut short by either is
// not applicable, and says which.
// The error is for what stops the battery from starting (a bad Config, an
// unknown name in Only, an *UnreachableError for a server that gives no
// answer at all), or a *CleanupError beside the outcomes when
// throwaway pods could not be deleted.
func Run(ctx context.Context, opts Options) (outs []Outcome, err error) {
	opts = opts.withDefaults()
	selected, err := selection(opts.Only)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeoutCause(ctx, opts.Timeout, errTimedOut)
	defer cancel()
	e, err := newEnv(opts)
	if err != nil {
		return nil, err
	}
	defer func() {
		if cerr := e.close(); cerr != nil && err == nil {
			err = cerr
		}
	}()
	if err := e.reach(ctx); err != nil {
		return nil, err
	}
	done := map[string]Outcome{}
	for _, c := range battery {
		if !selected[c.Name] {
			continue
		}
		o := e.runOne(ctx, c, done)
		done[c.Name] = o
		outs = append(outs, o)
		if opts.Report != nil {
			opts.Report(o)
		}
	}
	return outs, nil
}

// selection is the set of checks to run: only's names and, transitively,
// what they build on.
func selection(only []string) (map[string]bool, error) {
	byName := map[string]Check{}
	for _, c := range battery {
		byName[c.Name] = c
	}
	sel := map[string]bool{}
	if len(only) == 0 {
		for n := range byName {
			sel[n] = true
		}
		return sel, nil
	}
	var add func(string) error
	add = func(n string) error {
		c, ok := byName[n]
		if !ok {
			return &UnknownCheckError{Name: n}
		}
		if sel[n] {
			return nil
		}
		sel[n] = true
		for _, d := range c.After {
			if err := add(d); err != nil {
				return err
			}
		}
		return nil
	}
	for _, n := range only {
		if err := add(strings.TrimSpace(n)); err != nil {
			return nil, err
		}
	}
	return sel, nil
}

// runOne runs c unless a check it builds on did not pass or the battery's
// time is up, each bounded by its own share of time.
func (e *env) runOne(ctx context.Context, c Check, done map[string]Outcome) Outcome {
	o := e.verdict(ctx, c, done)
	o.Name, o.Proves, o.Since, o.After = c.Name, c.Proves, c.Since, c.After
	return o
}

func (e *env) verdict(ctx context.Context, c Check, done map[string]Outcome) Outcome {
	for _, d := range c.After {
		if r := done[d].Result; r != Pass {
			return notApplicable("depends on %s, which %s", d, r.past())
		}
	}
	if ctx.Err() != nil {
		return notApplicable("not run: %s", e.stopped(ctx))
	}
	budget := e.checkTimeout()
	if c.waits {
		budget += e.opts.ExpiryWait
	}
	cctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	o := c.run(cctx, e)
	if o.Result != Pass && ctx.Err() != nil {
		// Whatever it found, the check did not get to finish.
		cut := notApplicable("cut short: %s (%s)", e.stopped(ctx), o.Evidence.Summary)
		cut.Evidence.Exchanges = o.Evidence.Exchanges
		return cut
	}
	if o.Result == Fail && o.refused != nil && e.opts.Remedy != nil {
		o.Evidence.Remedy = e.opts.Remedy(o.refused)
	}
	return o
}

// errTimedOut is the cause of the battery's ctx ending at Options.Timeout,
// told apart from its caller's ending it: a check that an interrupt stops
// says so, not that time ran out.
var errTimedOut = errors.New("the battery's timeout ran out")

// stopped says why the battery's ctx, which has ended, ended.
func (e *env) stopped(ctx context.Context) string {
	if errors.Is(context.Cause(ctx), errTimedOut) {
		return fmt.Sprintf("the battery's --timeout of %s ran out first", e.opts.Timeout)
	}
	return "interrupted"
}

// checkTimeout bounds one check: two watches to their end, and some.
func (e *env) checkTimeout() time.Duration {
	return 2*(e.watchTimeout()+e.opts.Grace) + 30*time.Second
}

func (e *env) watchTimeout() time.Duration { return time.Duration(e.opts.WatchSeconds) * time.Second }

// Failed reports whether any outcome failed.
func Failed(outs []Outcome) bool {
	return slices.ContainsFunc(outs, func(o Outcome) bool { return o.Result == Fail })
}

func pass(format string, args ...any) Outcome {
	return Outcome{Result: Pass, Evidence: Evidence{Summary: fmt.Sprintf(format, args...)}}
}

func notApplicable(format string, args ...any) Outcome {
	return Outcome{Result: NotApplicable, Evidence: Evidence{Summary: fmt.Sprintf(format, args...)}}
}

// fail is a failure: what was seen, what the protocol requires, and the
// exchanges that show it.
func fail(requires string, summary string, ex ...*Exchange) Outcome {
	return Outcome{Result: Fail, Evidence: Evidence{Summary: summary, Requires: requires, Exchanges: exchanges(ex)}}
}

// with attaches exchanges to an outcome's evidence.
func (o Outcome) with(ex ...*Exchange) Outcome {
	o.Evidence.Exchanges = append(o.Evidence.Exchanges, exchanges(ex)...)
	return o
}

func exchanges(ex []*Exchange) []Exchange {
	var out []Exchange
	for _, x := range ex {
		if x != nil {
			out = append(out, *x)
		}
	}
	return out
}

// requestFailed is the outcome of a request (named by what) that got no
// 2xx answer. A refusal that is the server's word about the client or its
// own state, not about the protocol (401 or 403: this user may not; 429,
// or 503 with Retry-After: come back later, as an apiserver starting or
// shutting down says), makes the check not applicable; anything else
// fails it.
func requestFailed(req, what string, err error, x ...*Exchange) Outcome {
	if se, ok := rest.AsStatusError(err); ok {
		switch c := se.Status.Code; {
		case c == http.StatusUnauthorized, c == http.StatusForbidden, c == http.StatusTooManyRequests,
			c == http.StatusServiceUnavailable && se.RetryAfter > 0:
			return notApplicable("%s was refused: %d %s: %s", what, c, se.Status.Reason, se.Status.Message).with(x...)
		}
	}
	o := fail(req, what+" failed: "+err.Error(), x...)
	o.refused = err
	return o
}
