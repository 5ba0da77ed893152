package session

import (
	"strings"
	"time"

	"github.com/podwatch/podwatch/cache"
	"github.com/podwatch/podwatch/internal/cli/base"
	"github.com/podwatch/podwatch/internal/cli/replay"
	"github.com/podwatch/podwatch/internal/podconfig"
	"github.com/podwatch/podwatch/rest"
	"github.com/podwatch/podwatch/rest/wire"
)

// Flags are the flags of watch and record. The exported ones are those
// watch's replay and record read.
type Flags struct {
	Conn             base.ConnFlags
	Node             string
	allNodes         bool
	Namespace        string
	Selector         string
	fieldSelector    string
	mode             string
	events           bool
	Manifests        string
	ManifestURL      string
	output           string
	noHeaders        bool
	timestamps       bool
	MaxEvents        int
	WatchList        bool
	watchListTimeout time.Duration
	ChunkSize        int64
	Verbosity        int
	contentType      string
	Replay           string
	Speed            float64
	Faults           replay.Faults
	Trace            base.TraceFlags

	// Worked out by Check.
	pcMode podconfig.Mode
}

// Register defines the flags on c; with replayFlags, watch's replay flags too.
func (f *Flags) Register(c *base.Command, replayFlags bool) {
	fs := c.Flags
	f.Conn.Register(c)
	fs.StringVar(&f.Node, "node", "", "watch the pods bound to this `node` (default: the hostname)")
	fs.BoolVar(&f.allNodes, "all-nodes", false, "watch the pods of every node")
	fs.StringVar(&f.Namespace, "namespace", "", "only this `namespace` (default: all, the kubelet's view)")
	c.Alias("n", "namespace")
	fs.StringVar(&f.Selector, "selector", "", "a label `selector`, such as app=web")
	c.Alias("l", "selector")
	fs.StringVar(&f.fieldSelector, "field-selector", "", "a field `selector` added to the node's")
	fs.StringVar(&f.mode, "mode", "incremental", "how updates are published: incremental, snapshot or snapshot-and-updates")
	fs.BoolVar(&f.events, "events", false, "print the api source's raw watch events instead of pod updates")
	fs.StringVar(&f.Manifests, "manifests", "", "a `folder` (or file) of static pod manifests")
	fs.StringVar(&f.ManifestURL, "manifest-url", "", "a `URL` serving static pod manifests")
	fs.StringVar(&f.output, "output", "text", "output `format`: text, json or yaml")
	c.Alias("o", "output")
	fs.BoolVar(&f.noHeaders, "no-headers", false, "text output: leave out the header line")
	fs.BoolVar(&f.timestamps, "timestamps", false, "text output: start each line with the time it was printed (RFC 3339, UTC; a replay's own time)")
	fs.IntVar(&f.MaxEvents, "max-events", 0, "exit once this many watch events after the initial sync are applied and printed (0: never)")
	fs.BoolVar(&f.WatchList, "watch-list", true, "get the initial state as a streaming watch list (--watch-list=false: a list)")
	fs.DurationVar(&f.watchListTimeout, "watch-list-timeout", cache.DefaultWatchListTimeout, "list instead when a watch list's initial events have not ended after this long (`duration`)")
	fs.Int64Var(&f.ChunkSize, "chunk-size", 500, "list page size (0: one page)")
	fs.StringVar(&f.contentType, "content-type", "json", "the `format` to ask lists and watches for: json, protobuf (the kubelet's) or cbor (alpha: needs the apiserver's CBORServingAndStorage gate)")
	f.Trace.Register(c)
	fs.IntVar(&f.Verbosity, "v", 0, "log `level`: 2 reflector steps, 3 resourceVersions, 6 requests, 7 headers, 8 bodies (cut short), 9 curl commands and longer bodies")
	if replayFlags {
		fs.StringVar(&f.Replay, "replay", "", "replay this recorded `fixture` instead of connecting to a cluster")
		fs.Float64Var(&f.Speed, "speed", 1, "with --replay: scale the replay's clock, its recorded timing and the client's backoffs and retry waits alike (2 twice as fast; 0 no waiting: a virtual clock that only the client's waits and injected stalls move)")
		f.Faults.Register(fs, "with --replay: ")
	}
}

var modes = map[string]podconfig.Mode{
	"incremental":          podconfig.Incremental,
	"snapshot":             podconfig.Snapshot,
	"snapshot-and-updates": podconfig.SnapshotAndUpdates,
}

// Check refuses flag combinations that cannot work.
func (f *Flags) Check(c *base.Command) error {
	name := c.Name
	mode, ok := modes[f.mode]
	if !ok {
		return base.Usagef(name, "--mode %q: want incremental, snapshot or snapshot-and-updates", f.mode)
	}
	f.pcMode = mode
	switch f.output {
	case "text", "json", "yaml":
	default:
		return base.Usagef(name, "-o %q: want text, json or yaml", f.output)
	}
	switch {
	case f.noHeaders && f.output != "text":
		return base.Usagef(name, "--no-headers applies to text output, not -o %s", f.output)
	case f.timestamps && f.output != "text":
		return base.Usagef(name, "--timestamps applies to text output, not -o %s", f.output)
	case f.Node != "" && f.allNodes:
		return base.Usagef(name, "--node and --all-nodes cannot be combined")
	case f.MaxEvents < 0:
		return base.Usagef(name, "--max-events %d: must not be negative", f.MaxEvents)
	case f.watchListTimeout <= 0:
		return base.Usagef(name, "--watch-list-timeout %v: must be positive", f.watchListTimeout)
	case f.ChunkSize < 0:
		return base.Usagef(name, "--chunk-size %d: must not be negative", f.ChunkSize)
	case f.Verbosity < 0:
		return base.Usagef(name, "-v %d: must not be negative", f.Verbosity)
	case f.Speed < 0:
		return base.Usagef(name, "--speed %g: must not be negative", f.Speed)
	case f.events && (f.Manifests != "" || f.ManifestURL != ""):
		return base.Usagef(name, "--events shows the api source's watch events; --manifests and --manifest-url do not apply")
	case f.events && c.Set("mode"):
		return base.Usagef(name, "--events shows watch events; --mode does not apply")
	case f.Replay != "" && f.Conn.Given(c):
		return base.Usagef(name, "--replay serves its own apiserver; connection flags do not apply")
	case c.Set("speed") && f.Replay == "":
		return base.Usagef(name, "--speed applies to --replay only")
	case !validFormat(f.contentType):
		return base.Usagef(name, "--content-type %q: want json, protobuf or cbor", f.contentType)
	case f.Trace.Diff.On() && !f.Trace.Enabled() && f.output != "json":
		return base.Usagef(name, "--diff shows in a trace (--trace, --trace-file, --trace-html) or in -o json")
	}
	return f.Trace.Check(c)
}

// restContentType is the rest.Config.ContentType --content-type asks for.
func (f *Flags) restContentType() string {
	wf, _ := wire.ParseName(f.contentType)
	return wf.ContentType()
}

func validFormat(name string) bool {
	_, ok := wire.ParseName(name)
	return ok
}

// selectorFor is the field selector for node (all nodes when empty) plus the
// user's extra terms.
func selectorFor(node, extra string) string {
	var terms []string
	if node != "" {
		terms = append(terms, rest.OneTermEqualSelector("spec.nodeName", node))
	}
	if extra != "" {
		terms = append(terms, extra)
	}
	return strings.Join(terms, ",")
}
