package cli

import (
	"strings"
	"time"

	"github.com/podwatch/podwatch/cache"
	"github.com/podwatch/podwatch/internal/podconfig"
	"github.com/podwatch/podwatch/rest"
)

// connFlags are kubectl's connection flags.
type connFlags struct {
	kubeconfig, context, cluster, user string
	server, token                      string
	certificateAuthority               string
	clientCertificate, clientKey       string
	tlsServerName                      string
	as, asUID                          string
	asGroups                           stringList
	requestTimeout                     string
	insecure                           bool
	http2ReadIdle, http2Ping           time.Duration
	disableHTTP2                       bool
}

func (f *connFlags) register(c *command) {
	fs := c.fs
	fs.StringVar(&f.kubeconfig, "kubeconfig", "", "the kubeconfig `file` (default: $KUBECONFIG, else ~/.kube/config)")
	fs.StringVar(&f.context, "context", "", "the kubeconfig `context` to use")
	fs.StringVar(&f.cluster, "cluster", "", "the kubeconfig `cluster` to use")
	fs.StringVar(&f.user, "user", "", "the kubeconfig `user` to use")
	fs.StringVar(&f.server, "server", "", "the apiserver's `URL`")
	c.alias("s", "server")
	fs.StringVar(&f.token, "token", "", "a bearer `token` (never printed)")
	fs.StringVar(&f.certificateAuthority, "certificate-authority", "", "a PEM `file` of the CAs to trust")
	fs.StringVar(&f.clientCertificate, "client-certificate", "", "a PEM client certificate `file`")
	fs.StringVar(&f.clientKey, "client-key", "", "the client certificate's key `file`")
	fs.StringVar(&f.tlsServerName, "tls-server-name", "", "check the server's certificate against this `name` instead of the host's")
	fs.StringVar(&f.as, "as", "", "impersonate this `user`")
	fs.StringVar(&f.asUID, "as-uid", "", "impersonate this user `UID` (with --as)")
	fs.Var(&f.asGroups, "as-group", "impersonate this `group` (repeatable)")
	fs.StringVar(&f.requestTimeout, "request-timeout", "0", "bound every request but a watch's body (`duration` or seconds; 0 for none)")
	fs.BoolVar(&f.insecure, "insecure-skip-tls-verify", false, "do not check the server's certificate (insecure)")
	fs.DurationVar(&f.http2ReadIdle, "http2-read-idle-timeout", 30*time.Second, "ping an HTTP/2 connection silent this long (`duration`)")
	fs.DurationVar(&f.http2Ping, "http2-ping-timeout", 15*time.Second, "close an HTTP/2 connection, and its watches, whose ping goes unanswered this long (`duration`)")
	fs.BoolVar(&f.disableHTTP2, "disable-http2", false, "speak HTTP/1.1 only (a watch silent past its timeout plus 30s is then ended and resumed)")
}

// given reports whether any connection flag was set.
func (f *connFlags) given(c *command) bool {
	for _, n := range []string{"kubeconfig", "context", "cluster", "user", "server", "token",
		"certificate-authority", "client-certificate", "client-key", "as", "as-uid", "as-group",
		"insecure-skip-tls-verify", "tls-server-name"} {
		if c.set(n) {
			return true
		}
	}
	return false
}

// watchFlags are the flags of watch and record.
type watchFlags struct {
	conn             connFlags
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
	trace            traceFlags

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

func (f *watchFlags) register(c *command, replay bool) {
	fs := c.fs
	f.conn.register(c)
	fs.StringVar(&f.node, "node", "", "watch the pods bound to this `node` (default: the hostname)")
	fs.BoolVar(&f.allNodes, "all-nodes", false, "watch the pods of every node")
	fs.StringVar(&f.namespace, "namespace", "", "only this `namespace` (default: all, the kubelet's view)")
	c.alias("n", "namespace")
	fs.StringVar(&f.selector, "selector", "", "a label `selector`, such as app=web")
	c.alias("l", "selector")
	fs.StringVar(&f.fieldSelector, "field-selector", "", "a field `selector` added to the node's")
	fs.StringVar(&f.mode, "mode", "incremental", "how updates are published: incremental, snapshot or snapshot-and-updates")
	fs.BoolVar(&f.events, "events", false, "print the api source's raw watch events instead of pod updates")
	fs.StringVar(&f.manifests, "manifests", "", "a `folder` (or file) of static pod manifests")
	fs.StringVar(&f.manifestURL, "manifest-url", "", "a `URL` serving static pod manifests")
	fs.StringVar(&f.output, "output", "text", "output `format`: text, json or yaml")
	c.alias("o", "output")
	fs.IntVar(&f.maxEvents, "max-events", 0, "exit once this many watch events after the initial sync are applied and printed (0: never)")
	fs.BoolVar(&f.watchList, "watch-list", true, "get the initial state as a streaming watch list (--watch-list=false: a list)")
	fs.DurationVar(&f.watchListTimeout, "watch-list-timeout", cache.DefaultWatchListTimeout, "list instead when a watch list's initial events have not ended after this long (`duration`)")
	fs.Int64Var(&f.chunkSize, "chunk-size", 500, "list page size (0: one page)")
	fs.StringVar(&f.contentType, "content-type", "json", "the `format` to ask lists and watches for: json, protobuf (the kubelet's) or cbor (alpha: needs the apiserver's CBORServingAndStorage gate)")
	f.trace.register(c)
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
func (f *watchFlags) check(c *command) error {
	name := c.name
	mode, ok := modes[f.mode]
	if !ok {
		return usagef(name, "--mode %q: want incremental, snapshot or snapshot-and-updates", f.mode)
	}
	f.pcMode = mode
	switch f.output {
	case "text", "json", "yaml":
	default:
		return usagef(name, "-o %q: want text, json or yaml", f.output)
	}
	switch {
	case f.node != "" && f.allNodes:
		return usagef(name, "--node and --all-nodes cannot be combined")
	case f.maxEvents < 0:
		return usagef(name, "--max-events %d: must not be negative", f.maxEvents)
	case f.watchListTimeout <= 0:
		return usagef(name, "--watch-list-timeout %v: must be positive", f.watchListTimeout)
	case f.chunkSize < 0:
		return usagef(name, "--chunk-size %d: must not be negative", f.chunkSize)
	case f.verbosity < 0:
		return usagef(name, "-v %d: must not be negative", f.verbosity)
	case f.speed < 0:
		return usagef(name, "--speed %g: must not be negative", f.speed)
	case f.events && (f.manifests != "" || f.manifestURL != ""):
		return usagef(name, "--events shows the api source's watch events; --manifests and --manifest-url do not apply")
	case f.events && c.set("mode"):
		return usagef(name, "--events shows watch events; --mode does not apply")
	case f.replay != "" && f.conn.given(c):
		return usagef(name, "--replay serves its own apiserver; connection flags do not apply")
	case c.set("speed") && f.replay == "":
		return usagef(name, "--speed applies to --replay only")
	case f.contentType != "json" && f.contentType != "protobuf" && f.contentType != "cbor":
		return usagef(name, "--content-type %q: want json, protobuf or cbor", f.contentType)
	case f.trace.diff.on() && !f.trace.enabled() && f.output != "json":
		return usagef(name, "--diff shows in a trace (--trace, --trace-file, --trace-html) or in -o json")
	}
	return f.trace.check(c)
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
