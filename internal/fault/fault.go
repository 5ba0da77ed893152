package fault

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Kind names a fault.
type Kind string

// The fault kinds. Whole-answer kinds replace the response; the others strike
// inside a body after Fault.Events whole events.
const (
	Cut       Kind = "cut"        // close the connection after Events events (or Bytes bytes)
	HalfEvent Kind = "half-event" // write the first half of the next event, then close
	Gone      Kind = "gone"       // answer: HTTP 410 with an Expired Status
	GoneEvent Kind = "gone-event" // an ERROR event carrying a 410 Expired Status, then a clean end
	TooMany   Kind = "429"        // answer: 429 with Retry-After of Wait (at least 1s)
	Internal  Kind = "500"        // answer: 500 with an InternalError Status
	Stall     Kind = "stall"      // send nothing for Wait, then go on
	Drip      Kind = "drip"       // the rest of the body one byte per Wait
	Garbage   Kind = "garbage"    // bytes that are not JSON, then close
	Oversized Kind = "oversized"  // a frame of Size bytes that never ends, then close
	HTML      Kind = "html"       // answer: an HTML error page with Status (default 503)
)

// Kinds lists every kind, whole answers first.
var Kinds = []Kind{Gone, TooMany, Internal, HTML, Cut, HalfEvent, GoneEvent, Stall, Drip, Garbage, Oversized}

// Whole reports whether k replaces the whole answer rather than striking in a body.
func (k Kind) Whole() bool {
	switch k {
	case Gone, TooMany, Internal, HTML:
		return true
	}
	return false
}

func (k Kind) valid() bool {
	for _, v := range Kinds {
		if v == k {
			return true
		}
	}
	return false
}

// Fault is one failure and where it strikes.
type Fault struct {
	Kind Kind
	// On is the kind of request it strikes: "watch" or "list". Left empty, a
	// stream fault strikes watches (its events are watch events) and a
	// whole-answer fault strikes either kind.
	On string
	// Nth is which request of that kind it strikes, from 1; 0 means the first.
	Nth int
	// Events is how many whole events pass before a stream fault strikes.
	Events int
	// Bytes, for Cut, cuts after this many body bytes instead of after Events.
	Bytes int64
	// Wait is the Retry-After of 429, the length of a stall, the interval of a drip.
	Wait time.Duration
	// Size is the length of an oversized frame (default 64 MiB).
	Size int64
	// Status is the HTTP status of an HTML page (default 503).
	Status int
}

// Defaults for parameters a spec leaves out.
const (
	defaultWait = time.Second
	defaultSize = 64 << 20
	defaultHTML = 503
)

// target is the kind of request f strikes, "" for either.
func (f Fault) target() string {
	if f.On == "" && !f.Kind.Whole() {
		return "watch"
	}
	return f.On
}

func (f Fault) wait() time.Duration {
	if f.Wait > 0 {
		return f.Wait
	}
	return defaultWait
}

// Parse reads a fault spec: KIND[:key=value,...] with keys on (watch|list),
// nth, events, bytes, wait (a Go duration), size (bytes, or with KiB/MiB/GiB)
// and status. Example: "cut:events=3,on=watch,nth=2".
func Parse(spec string) (Fault, error) {
	kind, params, _ := strings.Cut(strings.TrimSpace(spec), ":")
	f := Fault{Kind: Kind(kind)}
	if !f.Kind.valid() {
		return Fault{}, &SpecError{Spec: spec, Reason: fmt.Sprintf("unknown kind %q", kind)}
	}
	if params == "" {
		return f, nil
	}
	for _, kv := range strings.Split(params, ",") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return Fault{}, &SpecError{Spec: spec, Reason: fmt.Sprintf("%q is not key=value", kv)}
		}
		if err := f.set(strings.TrimSpace(k), strings.TrimSpace(v)); err != nil {
			return Fault{}, &SpecError{Spec: spec, Reason: err.Error()}
		}
	}
	return f, nil
}

func (f *Fault) set(k, v string) error {
	var err error
	switch k {
	case "on":
		if v != "watch" && v != "list" && v != "" {
			return fmt.Errorf("on=%q: want watch or list", v)
		}
		f.On = v
	case "nth":
		f.Nth, err = nonNegative(k, v)
	case "events":
		f.Events, err = nonNegative(k, v)
	case "bytes":
		f.Bytes, err = parseSize(v)
	case "size":
		f.Size, err = parseSize(v)
	case "status":
		f.Status, err = strconv.Atoi(v)
		if err == nil && (f.Status < 100 || f.Status > 599) {
			err = fmt.Errorf("status %d out of range", f.Status)
		}
	case "wait":
		f.Wait, err = time.ParseDuration(v)
		if err == nil && f.Wait < 0 {
			err = fmt.Errorf("wait %v is negative", f.Wait)
		}
	default:
		return fmt.Errorf("unknown key %q", k)
	}
	return err
}

func nonNegative(k, v string) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%s=%q: want a whole number >= 0", k, v)
	}
	return n, nil
}

func parseSize(v string) (int64, error) {
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}} {
		if strings.HasSuffix(v, u.suffix) {
			v, mult = strings.TrimSuffix(v, u.suffix), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 || n > (1<<62)/mult {
		return 0, fmt.Errorf("size %q: want bytes, or a number with KiB, MiB or GiB", v)
	}
	return n * mult, nil
}

// String gives f back as a spec Parse reads.
func (f Fault) String() string {
	var p []string
	add := func(k string, v any, set bool) {
		if set {
			p = append(p, fmt.Sprintf("%s=%v", k, v))
		}
	}
	add("on", f.On, f.On != "")
	add("nth", f.Nth, f.Nth != 0)
	add("events", f.Events, f.Events != 0)
	add("bytes", f.Bytes, f.Bytes != 0)
	add("wait", f.Wait, f.Wait != 0)
	add("size", f.Size, f.Size != 0)
	add("status", f.Status, f.Status != 0)
	if len(p) == 0 {
		return string(f.Kind)
	}
	return string(f.Kind) + ":" + strings.Join(p, ",")
}

// SpecError is a fault spec that cannot be read.
type SpecError struct {
	Spec, Reason string
}

func (e *SpecError) Error() string { return fmt.Sprintf("fault spec %q: %s", e.Spec, e.Reason) }
