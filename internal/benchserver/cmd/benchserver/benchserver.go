package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"

	"github.com/podwatch/podwatch/internal/apiwire"
	"github.com/podwatch/podwatch/internal/benchserver"
	"github.com/podwatch/podwatch/internal/tool"
)

const usage = `Usage: benchserver serve|stream [flags]

  serve --pod FILE --pods N --events M [--node NODE] [--vary] [--addr ADDR]
      a synthetic apiserver: N copies of the pod, then M MODIFIED events;
      prints its address on stderr and serves until interrupted
  stream --pod FILE --pods N --events M [--node NODE] [--vary] --out FILE
      write the M events of serve's watch as a stream file (one JSON line
      on stdout: events, bytes, last_rv)
`

// Main runs the command line args (without the program name) and returns
// the exit status. serve returns once ctx ends, with its server closed.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return tool.ExitUsage
	}
	switch sub, subArgs := args[0], args[1:]; sub {
	case "serve":
		return serveCmd(ctx, subArgs, stderr)
	case "stream":
		return streamCmd(subArgs, stdout, stderr)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return tool.ExitOK
	default:
		fmt.Fprintf(stderr, "benchserver: unknown command %q\n%s", sub, usage)
		return tool.ExitUsage
	}
}

// podFlags are both commands': the template and the counts.
type podFlags struct {
	pod          string
	pods, events int
	node         string
	vary         bool
}

func newFlagSet(name string, stderr io.Writer, p *podFlags) *flag.FlagSet {
	fs := tool.NewFlagSet("benchserver "+name, stderr)
	fs.StringVar(&p.pod, "pod", "testdata/pod.json", "the template pod `file` (JSON)")
	fs.IntVar(&p.pods, "pods", 110, "how many copies of the pod")
	fs.IntVar(&p.events, "events", 2000, "how many MODIFIED events after them")
	fs.StringVar(&p.node, "node", "node-1", "the `node` the copies are bound to")
	fs.BoolVar(&p.vary, "vary", false, "make the copies differ where replicas do (times, token volume, container IDs, pod IP), not only in name, uid and resourceVersion")
	return fs
}

// exit reports err, if any, and returns the status it calls for.
func exit(stderr io.Writer, name string, err error) int {
	if err != nil {
		fmt.Fprintf(stderr, "benchserver %s: %v\n", name, err)
		return tool.ExitError
	}
	return tool.ExitOK
}

func (p *podFlags) server() (*benchserver.Server, error) {
	tmpl, err := os.ReadFile(p.pod)
	if err != nil {
		return nil, err
	}
	if p.pods <= 0 || p.events < 0 {
		return nil, fmt.Errorf("--pods %d --events %d: want pods > 0, events >= 0", p.pods, p.events)
	}
	pods, err := benchserver.NewPods(tmpl, p.pods, p.node, benchserver.PodsOptions{Vary: p.vary})
	if err != nil {
		return nil, err
	}
	return &benchserver.Server{Pods: pods, M: p.events}, nil
}

func streamCmd(args []string, stdout, stderr io.Writer) int {
	var p podFlags
	fs := newFlagSet("stream", stderr, &p)
	out := fs.String("out", "", "the stream `file` to write")
	if status, ok := tool.Parse(fs, args); !ok {
		return status
	}
	if *out == "" {
		fmt.Fprintln(stderr, "benchserver stream: no --out given")
		return tool.ExitUsage
	}
	return exit(stderr, "stream", stream(p, *out, stdout))
}

func stream(p podFlags, out string, stdout io.Writer) error {
	srv, err := p.server()
	if err != nil {
		return err
	}
	var buf []byte
	for k := 0; k < srv.M; k++ {
		buf = srv.Pods.Event(buf, apiwire.Modified, srv.Pods.EventPod(k), srv.Pods.EventRV(k))
	}
	if err := os.WriteFile(out, buf, 0o644); err != nil {
		return err
	}
	line, err := json.Marshal(map[string]any{"events": srv.M, "bytes": len(buf), "last_rv": srv.LastRV()})
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "%s\n", line)
	return err
}

func serveCmd(ctx context.Context, args []string, stderr io.Writer) int {
	var p podFlags
	fs := newFlagSet("serve", stderr, &p)
	addr := fs.String("addr", "127.0.0.1:0", "the `address` to listen on")
	if status, ok := tool.Parse(fs, args); !ok {
		return status
	}
	return exit(stderr, "serve", serve(ctx, p, *addr, stderr))
}

func serve(ctx context.Context, p podFlags, addr string, stderr io.Writer) error {
	srv, err := p.server()
	if err != nil {
		return err
	}
	// Before the first client: the protobuf copies' shapes are encoded
	// now, so no measured client waits for them.
	if err := srv.WarmProtobuf(); err != nil {
		return err
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	hs := &http.Server{Handler: srv}
	done := make(chan struct{})
	go func() { defer close(done); hs.Serve(l) }()
	fmt.Fprintf(stderr, "benchserver: serving %d pods and %d events (last resourceVersion %d) on http://%s\n",
		p.pods, p.events, srv.LastRV(), l.Addr())
	<-ctx.Done()
	hs.Close()
	<-done
	return nil
}
