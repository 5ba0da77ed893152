package watchcmd

import (
	"context"

	"github.com/podwatch/podwatch/internal/cli/base"
	"github.com/podwatch/podwatch/internal/cli/session"
)

// Run runs podwatch watch with args, those after the command's name.
func Run(ctx context.Context, e base.Env, args []string) error {
	c := base.NewCommand("watch", watchUsage)
	var f session.Flags
	f.Register(c, true)
	pos, err := c.Parse(e.Stdout, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return base.Usagef(c.Name, "unexpected argument %q", pos[0])
	}
	if err := f.Check(c); err != nil {
		return err
	}
	if f.Replay != "" {
		return replayWatch(ctx, e, c, &f)
	}
	cfg, err := f.Conn.RESTConfig(c.Name, e)
	if err != nil {
		return err
	}
	p, err := f.Plan(e)
	if err != nil {
		return err
	}
	return session.Run(ctx, e, &f, p, cfg, session.Extras{})
}

const watchUsage = `Usage: podwatch watch [flags]

Runs the kubelet's pod config: the pods bound to a node, listed and watched from
the apiserver (plus static pods from --manifests and --manifest-url), and prints
every update on stdout. Ctrl-C stops it (exit 0), and a run whose trace is
not on stderr ends with one line there on what it holds: its pods and
resourceVersion, its relists and backoffs, and the changes its relists show
it missed.

The text output is a table, a line per pod of each update, its columns
aligned as kubectl aligns its own (a column widens for a longer cell, and
never narrows). --no-headers leaves out the header line; --timestamps starts
each line with the time it was printed. The columns:
  OP      what the pod config tells the kubelet of the pod (the same words
          as -o json's "op"):
            ADD        a pod new to the kubelet; with no pod, "(no pods)": a
                       source is ready and had nothing new
            UPDATE     its spec, labels, annotations or deletion fields changed
            RECONCILE  only its status changed (the kubelet owns the status;
                       it merely checks it)
            DELETE     it is being deleted gracefully (a deletionTimestamp):
                       stop its containers. A graceful delete prints DELETE
                       twice: when it begins (the deletionTimestamp and its
                       grace period appear), and when the delete that ends it
                       sets deletionGracePeriodSeconds to 0 (the kubelet's,
                       once the containers stopped), just before the pod goes
            REMOVE     the pod is gone from its source
            SET        every pod of every source (--mode snapshot, and
                       snapshot-and-updates for pods added or removed)
  SOURCE  api (the apiserver), file (--manifests) or http (--manifest-url)
  POD     namespace/name
  PHASE, NODE, RV (resourceVersion), IP: <none> when the pod has none
  NOTE    deleting (a deletionTimestamp), mirror (a static pod's copy on the
          apiserver)
With --events the first column is the watch event's type instead (ADDED,
MODIFIED, DELETED, BOOKMARK with its resourceVersion, ERROR with the Status),
and there is no SOURCE.

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
