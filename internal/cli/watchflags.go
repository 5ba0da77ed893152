package cli

import (
	"strings"
	"time"

	"github.com/podwatch/podwatch/cache"
	"github.com/podwatch/podwatch/internal/cli/base"
	"github.com/podwatch/podwatch/internal/podconfig"
	"github.com/podwatch/podwatch/rest"
)

// watchFlags are the flags of watch and record.
type watchFlags struct {
	conn             base.ConnFlags
	node             string
	allNodes         bool
	namespace        string
	selector         string
	fieldSelector    string
	mode             string
	events           bool
	manifests        string
	manifestURL      string
	output           string
	maxEvents        int
	watchList        bool
	watchListTimeout time.Duration
	chunkSize        int64
	verbosity        int
	contentType      string
	replay           string
	speed            float64
	faults           replayFaults
	trace            base.TraceFlags

	// Worked out by check.
	pcMode podconfig.Mode
}

const watchUsage = `Usage: podwatch watch [flags]

Runs the kubelet's pod config: the pods bound to a node, listed and watched from
the apiserver (plus static pods from --manifests and --manifest-url), and prints
every update on stdout. Ctrl-C stops it (exit 0).

  -o json prints one update per line, a stable schema:
    {"op":"SET|ADD|UPDATE|REMOVE|DELETE|RECONCILE","source":"api|file|http","pods":[...]}
  --events prints the raw watch events instead (-o json: byte for byte).
  --replay FIXTURE serves a recorded fixture inside the process, watches it,
    and exits once every recorded exchange has been played.
  --trace narrates the protocol on stderr (--trace-file F to a file): every
    request with each query parameter explained, the response, each body read,
    HTTP/2 frames (over TLS), each event as it is applied, the reflector's
    decisions and their reasons, and each push with what changed.
    --trace-format json gives one object per line, for tools (docs/TRACE.md):
    {"at_ms":N,"kind":K,"req":N,K:{...}} with K one of start, decision,
    request, response, conn, frame, read, event, body-end, push, stall,
    missed, stop.
    --trace-html F writes one self-contained page with a timeline of the run.
  --diff tells, with a trace or -o json, what each MODIFIED event changed
    against the pod's previous version, as JSON patch operations, without
    metadata.managedFields and metadata.resourceVersion (--diff=all: with
    them); -o json's UPDATE, DELETE and RECONCILE lines gain "diff":{POD:[...]}.
`

func (f *watchFlags) register(c *base.Command, replay bool) {
	fs := c.Flags
	f.conn.Register(c)
	fs.StringVar(&f.node, "node", "", "watch the pods bound to this `node` (default: the hostname)")
	fs.BoolVar(&f.allNodes, "all-nodes", false, "watch the pods of every node")
	fs.StringVar(&f.namespace, "namespace", "", "only this `namespace` (default: all, the kubelet's view)")
	c.Alias("n", "namespace")
	fs.StringVar(&f.selector, "selector", "", "a label `selector`, such as app=web")
	c.Alias("l", "selector")
	fs.StringVar(&f.fieldSelector, "field-selector", "", "a field `selector` added to the node's")
	fs.StringVar(&f.mode, "mode", "incremental", "how updates are published: incremental, snapshot or snapshot-and-updates")
	fs.BoolVar(&f.events, "events", false, "print the api source's raw watch events instead of pod updates")
	fs.StringVar(&f.manifests, "manifests", "", "a `folder` (or file) of static pod manifests")
	fs.StringVar(&f.manifestURL, "manifest-url", "", "a `URL` serving static pod manifests")
	fs.StringVar(&f.output, "output", "text", "output `format`: text, json or yaml")
	c.Alias("o", "output")
	fs.IntVar(&f.maxEvents, "max-events", 0, "exit once this many watch events after the initial sync are applied and printed (0: never)")
	fs.BoolVar(&f.watchList, "watch-list", true, "get the initial state as a streaming watch list (--watch-list=false: a list)")
	fs.DurationVar(&f.watchListTimeout, "watch-list-timeout", cache.DefaultWatchListTimeout, "list instead when a watch list's initial events have not ended after this long (`duration`)")
	fs.Int64Var(&f.chunkSize, "chunk-size", 500, "list page size (0: one page)")
	fs.StringVar(&f.contentType, "content-type", "json", "the `format` to ask lists and watches for: json, protobuf (the kubelet's) or cbor (alpha: needs the apiserver's CBORServingAndStorage gate)")
	f.trace.Register(c)
	fs.IntVar(&f.verbosity, "v", 0, "log `level`: 2 reflector steps, 3 resourceVersions, 6 requests, 7 headers, 8 bodies (cut short), 9 curl commands and longer bodies")
	if replay {
		fs.StringVar(&f.replay, "replay", "", "replay this recorded `fixture` instead of connecting to a cluster")
		fs.Float64Var(&f.speed, "speed", 1, "with --replay: scale the replay's clock, its recorded timing and the client's backoffs and retry waits alike (2 twice as fast; 0 no waiting: a virtual clock that only the client's waits and injected stalls move)")
		f.faults.register(fs, "with --replay: ")
	}
}

var modes = map[string]podconfig.Mode{
	"incremental":          podconfig.Incremental,
	"snapshot":             podconfig.Snapshot,
	"snapshot-and-updates": podconfig.SnapshotAndUpdates,
}

// check refuses flag combinations that cannot work.
func (f *watchFlags) check(c *base.Command) error {
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
	case f.node != "" && f.allNodes:
		return base.Usagef(name, "--node and --all-nodes cannot be combined")
	case f.maxEvents < 0:
		return base.Usagef(name, "--max-events %d: must not be negative", f.maxEvents)
	case f.watchListTimeout <= 0:
		return base.Usagef(name, "--watch-list-timeout %v: must be positive", f.watchListTimeout)
	case f.chunkSize < 0:
		return base.Usagef(name, "--chunk-size %d: must not be negative", f.chunkSize)
	case f.verbosity < 0:
		return base.Usagef(name, "-v %d: must not be negative", f.verbosity)
	case f.speed < 0:
		return base.Usagef(name, "--speed %g: must not be negative", f.speed)
	case f.events && (f.manifests != "" || f.manifestURL != ""):
		return base.Usagef(name, "--events shows the api source's watch events; --manifests and --manifest-url do not apply")
	case f.events && c.Set("mode"):
		return base.Usagef(name, "--events shows watch events; --mode does not apply")
	case f.replay != "" && f.conn.Given(c):
		return base.Usagef(name, "--replay serves its own apiserver; connection flags do not apply")
	case c.Set("speed") && f.replay == "":
		return base.Usagef(name, "--speed applies to --replay only")
	case f.contentType != "json" && f.contentType != "protobuf" && f.contentType != "cbor":
		return base.Usagef(name, "--content-type %q: want json, protobuf or cbor", f.contentType)
	case f.trace.Diff.On() && !f.trace.Enabled() && f.output != "json":
		return base.Usagef(name, "--diff shows in a trace (--trace, --trace-file, --trace-html) or in -o json")
	}
	return f.trace.Check(c)
}

// restContentType is the rest.Config.ContentType --content-type asks for.
func (f *watchFlags) restContentType() string {
	switch f.contentType {
	case "protobuf":
		return rest.ContentTypeProtobuf
	case "cbor":
		return rest.ContentTypeCBOR
	}
	return rest.ContentTypeJSON
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
