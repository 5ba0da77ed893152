package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/podwatch/podwatch/internal/tool"
)

// config is the command line: the three binaries, the template, the size.
type config struct {
	podwatch, clientgo, server string
	pod                        string
	quick                      bool
	decodeOnly                 bool
}

// Main runs the command line args (without the program name), prints the
// tables on stdout, and returns the exit status. Ending ctx stops every
// process it started.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var c config
	fs := tool.NewFlagSet("benchrun", stderr)
	fs.StringVar(&c.podwatch, "podwatch", "bin/podwatch", "the podwatch `binary`")
	fs.StringVar(&c.clientgo, "clientgo", "bin/clientgo-bench", "the client-go bench `binary`")
	fs.StringVar(&c.server, "benchserver", "bin/benchserver", "the synthetic apiserver's `binary`")
	fs.StringVar(&c.pod, "pod", "testdata/pod.json", "the template pod `file`")
	fs.BoolVar(&c.quick, "quick", false, "small scenarios only (a smoke run)")
	fs.BoolVar(&c.decodeOnly, "decode", false, "the decode table only, without the sync scenarios")
	if status, ok := tool.Parse(fs, args); !ok {
		return status
	}
	if err := c.run(ctx, stdout); err != nil {
		fmt.Fprintln(stderr, "benchrun:", err)
		return tool.ExitError
	}
	return tool.ExitOK
}

// proc is one measured process.
type proc struct {
	out    map[string]any
	wall   time.Duration
	cpu    time.Duration
	rssKB  int64
	stderr string
}

func measure(ctx context.Context, name string, args ...string) (proc, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	p := proc{wall: time.Since(start), stderr: stderr.String()}
	if err != nil {
		return p, fmt.Errorf("%s %v: %w\n%s", filepath.Base(name), args, err, stderr.String())
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		p.cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		p.rssKB = ru.Maxrss
	}
	if err := json.Unmarshal(bytes.TrimSpace(stdout.Bytes()), &p.out); err != nil {
		return p, fmt.Errorf("%s %v: output %q: %w", filepath.Base(name), args, stdout.String(), err)
	}
	return p, nil
}

// server is a running benchserver serve.
type server struct {
	cmd  *exec.Cmd
	url  string
	last string
}

var served = regexp.MustCompile(`last resourceVersion (\d+)\) on (http://\S+)`)

func (c config) startServer(ctx context.Context, n, m int, vary bool) (*server, error) {
	cmd := exec.CommandContext(ctx, c.server, "serve", "--pod", c.pod, "--pods", strconv.Itoa(n), "--events", strconv.Itoa(m),
		"--vary="+strconv.FormatBool(vary))
	errPipe, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	line, err := bufio.NewReader(errPipe).ReadString('\n')
	mm := served.FindStringSubmatch(line)
	if err != nil || mm == nil {
		cmd.Process.Kill()
		cmd.Wait()
		return nil, fmt.Errorf("benchserver serve said %q (%v)", line, err)
	}
	return &server{cmd: cmd, url: mm[2], last: mm[1]}, nil
}

func (s *server) stop() {
	s.cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		s.cmd.Process.Kill()
		<-done
	}
}

func (c config) run(ctx context.Context, stdout io.Writer) error {
	tmp, err := os.MkdirTemp("", "podwatch-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if err := c.decode(ctx, stdout, filepath.Join(tmp, "stream.json")); err != nil {
		return err
	}
	if c.decodeOnly {
		return nil
	}
	type scenario struct {
		n, m      int
		watchList bool
		vary      bool // copies that differ as replicas do, not only in name
	}
	// The last is all nodes of a large cluster, pods varied as replicas.
	scenarios := []scenario{{110, 20000, true, false}, {5000, 5000, true, false}, {5000, 5000, false, false},
		{5000, 5000, true, true}, {50000, 1000, true, false}, {150000, 1000, true, true}}
	if c.quick {
		scenarios = []scenario{{20, 200, true, false}, {20, 200, false, false}, {20, 200, true, true}}
	}
	fmt.Fprintln(stdout)
	fmt.Fprintln(stdout, "| sync | podwatch wall / CPU / peak RSS | client-go wall / CPU / peak RSS | wall | CPU | RSS |")
	fmt.Fprintln(stdout, "| --- | --- | --- | --- | --- | --- |")
	for _, sc := range scenarios {
		runs, err := c.sync(ctx, sc.n, sc.m, sc.watchList, sc.vary)
		if err != nil {
			return err
		}
		mode := "watch list"
		if !sc.watchList {
			mode = "paged list"
		}
		if sc.vary {
			mode += ", copies varied as replicas"
		}
		for _, r := range runs {
			fmt.Fprintf(stdout, "| N=%d M=%d, %s, %s | %s | %s | %.2f | %.2f | %.2f |\n", sc.n, sc.m, mode, r.format,
				procCell(r.pw), procCell(r.cg), ratio(r.pw.wall, r.cg.wall), ratio(r.pw.cpu, r.cg.cpu), float64(r.pw.rssKB)/float64(r.cg.rssKB))
			fmt.Fprintf(stdout, "|   sync (to first push) | %.2fs | %.2fs | %.2f | | |\n", num(r.pw, "sync_s"), num(r.cg, "sync_s"), num(r.pw, "sync_s")/num(r.cg, "sync_s"))
		}
	}
	fmt.Fprintln(stdout)
	fmt.Fprintln(stdout, "Ratios are podwatch / client-go: below 1 is podwatch ahead (for events/s, above 1).")
	fmt.Fprintln(stdout, "Each sync row has both sides in one format: JSON, or protobuf as the kubelet asks for its pods.")
	fmt.Fprintln(stdout, "Copies varied as replicas differ in their times, token volume, container IDs and pod IP too,")
	fmt.Fprintln(stdout, "so only what replicas of one template really share is the same in every copy.")
	return nil
}

// decode writes the stream file, in JSON, protobuf and CBOR, has each side
// decode each, and prints the decode table.
func (c config) decode(ctx context.Context, stdout io.Writer, stream string) error {
	if _, err := measure(ctx, c.server, "stream", "--pod", c.pod, "--pods", "110", "--events", "2000", "--out", stream); err != nil {
		return err
	}
	// The same events as the apiserver sends them to a protobuf client,
	// encoded by client-go's own serializer.
	pbStream := strings.TrimSuffix(stream, filepath.Ext(stream)) + ".pb"
	if out, err := exec.CommandContext(ctx, c.clientgo, "protobuf-stream", "--stream", stream, "--out", pbStream).CombinedOutput(); err != nil {
		return fmt.Errorf("%s protobuf-stream: %w\n%s", filepath.Base(c.clientgo), err, out)
	}
	// And as it sends them to a CBOR client (with the apiserver's
	// CBORServingAndStorage gate on).
	cborStream := strings.TrimSuffix(stream, filepath.Ext(stream)) + ".cbor"
	if out, err := exec.CommandContext(ctx, c.clientgo, "cbor-stream", "--stream", stream, "--out", cborStream).CombinedOutput(); err != nil {
		return fmt.Errorf("%s cbor-stream: %w\n%s", filepath.Base(c.clientgo), err, out)
	}
	repeat, cgRepeat := "10", "3"
	if c.quick {
		repeat, cgRepeat = "1", "1"
	}
	var d decodeRuns
	// Each measurement runs decodeRounds times, all interleaved, and
	// the fastest of each counts: on a shared machine, load that comes and
	// goes then weighs on both sides alike rather than on whichever ran
	// while it lasted.
	rounds := decodeRounds
	if c.quick {
		rounds = 1
	}
	for range rounds {
		for _, r := range []struct {
			p    *proc
			name string
			args []string
		}{
			{&d.pwJSON, c.podwatch, []string{"bench", "decode", "--stream", stream, "--repeat", repeat}},
			{&d.pwProto, c.podwatch, []string{"bench", "decode", "--stream", pbStream, "--repeat", repeat, "--content-type", "protobuf"}},
			{&d.cgJSON, c.clientgo, []string{"decode", "--stream", stream, "--repeat", cgRepeat}},
			{&d.cgProto, c.clientgo, []string{"decode", "--stream", pbStream, "--repeat", repeat, "--content-type", "protobuf"}},
			{&d.pwCBOR, c.podwatch, []string{"bench", "decode", "--stream", cborStream, "--repeat", repeat, "--content-type", "cbor"}},
			{&d.cgCBOR, c.clientgo, []string{"decode", "--stream", cborStream, "--repeat", cgRepeat, "--content-type", "cbor"}},
		} {
			p, err := measure(ctx, r.name, r.args...)
			if err != nil {
				return err
			}
			if r.p.out == nil || num(p, "events_per_s") > num(*r.p, "events_per_s") {
				*r.p = p
			}
		}
	}
	printDecode(stdout, d, rounds)
	return nil
}

// decodeRounds is how many times each decode is measured.
const decodeRounds = 3

// decodeRuns are the decode measurements of one run: each side on the
// same events, in JSON, protobuf and CBOR.
type decodeRuns struct{ pwJSON, pwProto, pwCBOR, cgJSON, cgProto, cgCBOR proc }

// syncRun is both sides' sync in one format.
type syncRun struct {
	format string
	pw, cg proc
}

// syncFormats are the formats each scenario runs in: JSON, and protobuf,
// the kubelet's.
var syncFormats = []string{"json", "protobuf"}

// sync runs each side against one server of n copies and m events until a
// push reflects the last, in each format.
func (c config) sync(ctx context.Context, n, m int, watchList, vary bool) ([]syncRun, error) {
	srv, err := c.startServer(ctx, n, m, vary)
	if err != nil {
		return nil, err
	}
	defer srv.stop()
	var runs []syncRun
	for _, format := range syncFormats {
		args := []string{"--server", srv.url, "--node", "node-1", "--until-rv", srv.last,
			"--watch-list=" + strconv.FormatBool(watchList), "--content-type", format}
		r := syncRun{format: format}
		if r.pw, err = measure(ctx, c.podwatch, append([]string{"bench", "sync"}, args...)...); err != nil {
			return nil, err
		}
		if r.cg, err = measure(ctx, c.clientgo, append([]string{"sync"}, args...)...); err != nil {
			return nil, err
		}
		runs = append(runs, r)
	}
	return runs, nil
}

func printDecode(w io.Writer, d decodeRuns, rounds int) {
	fmt.Fprintf(w, "| decode, 2,000 real-pod events in memory (fastest of %d) | events/s | MB/s | allocs/event | bytes/event |\n", rounds)
	fmt.Fprintln(w, "| --- | --- | --- | --- | --- |")
	for _, r := range []struct {
		name string
		p    proc
	}{{"podwatch (JSON)", d.pwJSON}, {"podwatch (protobuf)", d.pwProto}, {"podwatch (CBOR)", d.pwCBOR},
		{"client-go (JSON)", d.cgJSON}, {"client-go (protobuf)", d.cgProto}, {"client-go (CBOR)", d.cgCBOR}} {
		fmt.Fprintf(w, "| %s | %.0f | %.1f | %.0f | %.0f |\n", r.name, num(r.p, "events_per_s"), num(r.p, "mb_per_s"), num(r.p, "allocs_per_event"), num(r.p, "bytes_per_event"))
	}
	for _, r := range []struct {
		name   string
		pw, cg proc
	}{
		{"podwatch JSON vs client-go JSON", d.pwJSON, d.cgJSON},
		{"podwatch protobuf vs client-go protobuf", d.pwProto, d.cgProto},
		{"podwatch CBOR vs client-go CBOR", d.pwCBOR, d.cgCBOR},
		{"podwatch JSON vs client-go protobuf", d.pwJSON, d.cgProto},
	} {
		// MB/s compares only the same bytes: not across content types.
		mb := ""
		if r.name != "podwatch JSON vs client-go protobuf" {
			mb = fmt.Sprintf("%.1fx", num(r.pw, "mb_per_s")/num(r.cg, "mb_per_s"))
		}
		fmt.Fprintf(w, "| %s | %.2fx | %s | %.2f | %.2f |\n", r.name,
			num(r.pw, "events_per_s")/num(r.cg, "events_per_s"), mb,
			num(r.pw, "allocs_per_event")/num(r.cg, "allocs_per_event"), num(r.pw, "bytes_per_event")/num(r.cg, "bytes_per_event"))
	}
}

func procCell(p proc) string {
	return fmt.Sprintf("%.1fs / %.1fs / %d MB", p.wall.Seconds(), p.cpu.Seconds(), p.rssKB/1024)
}

func ratio(a, b time.Duration) float64 { return a.Seconds() / b.Seconds() }

func num(p proc, key string) float64 {
	v, _ := p.out[key].(float64)
	return v
}
