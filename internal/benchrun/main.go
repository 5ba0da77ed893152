// Command benchrun is make bench: it runs podwatch bench and clientgo-bench on
// the same synthetic apiserver and the same watch stream, measures each whole
// process (wall time, user+system CPU, peak RSS from its rusage), and prints
// one side-by-side table with the ratios.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"syscall"
	"time"
)

var (
	podwatch = flag.String("podwatch", "bin/podwatch", "the podwatch binary")
	clientgo = flag.String("clientgo", "bin/clientgo-bench", "the client-go bench binary")
	pod      = flag.String("pod", "testdata/pod.json", "the template pod")
	quick    = flag.Bool("quick", false, "small scenarios only (a smoke run)")
)

// proc is one measured process.
type proc struct {
	out    map[string]any
	wall   time.Duration
	cpu    time.Duration
	rssKB  int64
	stderr string
}

func measure(name string, args ...string) (proc, error) {
	cmd := exec.Command(name, args...)
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

// server is a running podwatch bench serve.
type server struct {
	cmd  *exec.Cmd
	url  string
	last string
}

var served = regexp.MustCompile(`last resourceVersion (\d+)\) on (http://\S+)`)

func startServer(n, m int, vary bool) (*server, error) {
	cmd := exec.Command(*podwatch, "bench", "serve", "--pod", *pod, "--pods", strconv.Itoa(n), "--events", strconv.Itoa(m),
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
		return nil, fmt.Errorf("bench serve said %q (%v)", line, err)
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

func main() {
	flag.Parse()
	tmp, err := os.MkdirTemp("", "podwatch-bench-")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(tmp)
	stream := filepath.Join(tmp, "stream.json")
	if _, err := measure(*podwatch, "bench", "stream", "--pod", *pod, "--pods", "110", "--events", "2000", "--out", stream); err != nil {
		fail(err)
	}
	repeat := "10"
	if *quick {
		repeat = "1"
	}
	pwDec, err := measure(*podwatch, "bench", "decode", "--stream", stream, "--repeat", repeat)
	check(err)
	cgDec, err := measure(*clientgo, "decode", "--stream", stream, "--repeat", map[bool]string{true: "1", false: "3"}[*quick])
	check(err)
	cgProto, err := measure(*clientgo, "decode", "--stream", stream, "--repeat", repeat, "--protobuf")
	check(err)
	printDecode(pwDec, cgDec, cgProto)

	type scenario struct {
		n, m      int
		watchList bool
		vary      bool // copies that differ as replicas do, not only in name
	}
	scenarios := []scenario{{110, 20000, true, false}, {5000, 5000, true, false}, {5000, 5000, false, false},
		{5000, 5000, true, true}, {50000, 1000, true, false}}
	if *quick {
		scenarios = []scenario{{20, 200, true, false}, {20, 200, false, false}, {20, 200, true, true}}
	}
	fmt.Println()
	fmt.Println("| sync | podwatch wall / CPU / peak RSS | client-go wall / CPU / peak RSS | wall | CPU | RSS |")
	fmt.Println("| --- | --- | --- | --- | --- | --- |")
	for _, sc := range scenarios {
		srv, err := startServer(sc.n, sc.m, sc.vary)
		check(err)
		wl := "--watch-list=" + strconv.FormatBool(sc.watchList)
		pw, err := measure(*podwatch, "bench", "sync", "--server", srv.url, "--node", "node-1", "--until-rv", srv.last, wl)
		check(err)
		cg, err := measure(*clientgo, "sync", "--server", srv.url, "--node", "node-1", "--until-rv", srv.last, wl)
		check(err)
		srv.stop()
		mode := "watch list"
		if !sc.watchList {
			mode = "paged list"
		}
		if sc.vary {
			mode += ", copies varied as replicas"
		}
		fmt.Printf("| N=%d M=%d, %s | %s | %s | %.2f | %.2f | %.2f |\n", sc.n, sc.m, mode, procCell(pw), procCell(cg),
			ratio(pw.wall, cg.wall), ratio(pw.cpu, cg.cpu), float64(pw.rssKB)/float64(cg.rssKB))
		fmt.Printf("|   sync (to first push) | %.2fs | %.2fs | %.2f | | |\n", num(pw, "sync_s"), num(cg, "sync_s"), num(pw, "sync_s")/num(cg, "sync_s"))
	}
	fmt.Println()
	fmt.Println("Ratios are podwatch / client-go: below 1 is podwatch ahead (for events/s, above 1).")
	fmt.Println("Copies varied as replicas differ in their times, token volume, container IDs and pod IP too,")
	fmt.Println("so only what replicas of one template really share is the same in every copy.")
}

func printDecode(pw, cg, proto proc) {
	fmt.Println("| decode, 2,000 real-pod events in memory | events/s | MB/s | allocs/event | bytes/event |")
	fmt.Println("| --- | --- | --- | --- | --- |")
	for _, r := range []struct {
		name string
		p    proc
	}{{"podwatch (JSON)", pw}, {"client-go (JSON)", cg}, {"client-go (protobuf)", proto}} {
		fmt.Printf("| %s | %.0f | %.1f | %.0f | %.0f |\n", r.name, num(r.p, "events_per_s"), num(r.p, "mb_per_s"), num(r.p, "allocs_per_event"), num(r.p, "bytes_per_event"))
	}
	fmt.Printf("| podwatch / client-go JSON | %.1fx | %.1fx | %.2f | %.2f |\n",
		num(pw, "events_per_s")/num(cg, "events_per_s"), num(pw, "mb_per_s")/num(cg, "mb_per_s"),
		num(pw, "allocs_per_event")/num(cg, "allocs_per_event"), num(pw, "bytes_per_event")/num(cg, "bytes_per_event"))
	fmt.Printf("| podwatch / client-go protobuf | %.2fx | | %.2f | %.2f |\n",
		num(pw, "events_per_s")/num(proto, "events_per_s"),
		num(pw, "allocs_per_event")/num(proto, "allocs_per_event"), num(pw, "bytes_per_event")/num(proto, "bytes_per_event"))
}

func procCell(p proc) string {
	return fmt.Sprintf("%.1fs / %.1fs / %d MB", p.wall.Seconds(), p.cpu.Seconds(), p.rssKB/1024)
}

func ratio(a, b time.Duration) float64 { return a.Seconds() / b.Seconds() }

func num(p proc, key string) float64 {
	v, _ := p.out[key].(float64)
	return v
}

func check(err error) {
	if err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "benchrun:", err)
	os.Exit(1)
}
