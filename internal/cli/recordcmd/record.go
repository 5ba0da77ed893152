package recordcmd

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"

	"github.com/podwatch/podwatch/internal/cli/base"
	"github.com/podwatch/podwatch/internal/cli/session"
	"github.com/podwatch/podwatch/internal/fixture"
)

const recordUsage = `Usage: podwatch record --out DIR [watch flags]

Runs 'podwatch watch' against a cluster and records every HTTP exchange, each
response body as the reads the client made with their timing, into
DIR/recording.json when the watch ends (Ctrl-C, --max-events). Bytes are
passed on as they arrive. No credential reaches the file: only the Accept,
Accept-Encoding and Content-Type request headers are kept.

With --content-type protobuf the recording keeps the protobuf wire as it
came (lists and Status answers as envelopes, watches as length-prefixed
frames), each read in base64 with its timing; with --content-type cbor it
keeps the CBOR as it came (lists and Status answers as one item, watches as
items one after another), the same way. Either replays to JSON, protobuf
and CBOR clients alike.

It prints what watch prints (see 'podwatch watch --help': the text table,
-o json, --events, the closing line on stderr), then the file it wrote.

Replay the result with 'podwatch watch --replay DIR' or 'podwatch serve DIR'.
`

// Run runs podwatch record with args, those after the command's name.
func Run(ctx context.Context, e base.Env, args []string) error {
	c := base.NewCommand("record", recordUsage)
	var f session.Flags
	f.Register(c, false)
	var out string
	c.Flags.StringVar(&out, "out", "", "the fixture `folder` to write (created if missing)")
	if err := c.ParseNoArgs(e.Stdout, args); err != nil {
		return err
	}
	if out == "" {
		return base.Usagef(c.Name, "--out is required")
	}
	if err := f.Check(c); err != nil {
		return err
	}
	// Refused now, not after a long run whose recording could not be kept.
	if err := fixture.CheckSavable(out); err != nil {
		return fmt.Errorf("record: --out %s: %w", out, err)
	}
	cfg, err := f.Conn.RESTConfig(c.Name, e)
	if err != nil {
		return err
	}
	p, err := f.Plan(e)
	if err != nil {
		return err
	}
	var rec *fixture.Recorder
	record := func(next http.RoundTripper) http.RoundTripper {
		rec = fixture.NewRecorder(next)
		return rec
	}
	runErr := session.Run(ctx, e, &f, p, cfg, session.Extras{Layers: []base.Layer{record}})
	if rec == nil {
		return runErr // the client was never built
	}
	// The session has closed every body: each exchange has its end.
	r := rec.Recording()
	if len(r.Exchanges) == 0 {
		return errors.Join(runErr, fmt.Errorf("record: nothing to save to %s: no request got an answer", out))
	}
	r.Comment = "recorded by podwatch record: " + p.Describe()
	if err := r.Save(out); err != nil {
		return errors.Join(runErr, fmt.Errorf("record: %w", err))
	}
	// The file, not only its folder: what was written, as the trace's
	// files are told.
	n := len(r.Exchanges)
	fmt.Fprintf(e.Stderr, "podwatch: wrote the recording, %d %s, to %s\n", n, base.Plural(n, "exchange", "exchanges"), filepath.Join(out, fixture.FileName))
	return runErr
}
