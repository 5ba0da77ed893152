package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/podwatch/podwatch/internal/tool"
	"github.com/podwatch/podwatch/rest/api"
	"github.com/podwatch/podwatch/watch"
)

const podFile = "../../../../testdata/pod.json"

// stream writes the M events of the watch, every one a MODIFIED pod, the
// last at the resourceVersion it prints.
func TestStream(t *testing.T) {
	out := filepath.Join(t.TempDir(), "stream.json")
	var stdout, stderr bytes.Buffer
	if code := Main(context.Background(), []string{"stream", "--pod", podFile, "--pods", "3", "--events", "40", "--out", out}, &stdout, &stderr); code != tool.ExitOK {
		t.Fatalf("exit %d, want %d; stderr:\n%s", code, tool.ExitOK, stderr.String())
	}
	var wrote struct {
		Events int   `json:"events"`
		Bytes  int   `json:"bytes"`
		LastRV int64 `json:"last_rv"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &wrote); err != nil {
		t.Fatalf("output %q is not one JSON line: %v", stdout.String(), err)
	}
	if wrote.Events != 40 || wrote.LastRV != 43 {
		t.Fatalf("printed %+v, want 40 events up to resourceVersion 43", wrote)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) != wrote.Bytes {
		t.Fatalf("file holds %d bytes, printed %d", len(data), wrote.Bytes)
	}
	d := watch.NewDecoder(io.NopCloser(bytes.NewReader(data)), api.Codec, watch.DecoderOptions{})
	n, last := 0, ""
	for {
		ev, err := d.Decode()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("event %d: %v", n+1, err)
		}
		if ev.Type != watch.Modified || ev.Object == nil {
			t.Fatalf("event %d: %s with object %v, want a MODIFIED pod", n+1, ev.Type, ev.Object)
		}
		n, last = n+1, ev.Object.Metadata.ResourceVersion
	}
	if n != 40 || last != "43" {
		t.Fatalf("the file holds %d events up to resourceVersion %q, want 40 up to 43", n, last)
	}
}

var served = regexp.MustCompile(`last resourceVersion (\d+)\) on (http://\S+)`)

// serve serves the copies until its context ends, and --vary reaches them.
func TestServe(t *testing.T) {
	for _, vary := range []bool{false, true} {
		ips := servedPodIPs(t, vary)
		if differ := ips[0] != ips[1]; differ != vary {
			t.Fatalf("--vary=%v: pod IPs %q, want them to differ only with --vary", vary, ips)
		}
	}
}

// servedPodIPs runs serve with three copies and returns their pod IPs as
// its list gives them.
func servedPodIPs(t *testing.T, vary bool) []string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errR, errW := io.Pipe()
	exited := make(chan int, 1)
	args := []string{"serve", "--pod", podFile, "--pods", "3", "--events", "5", "--vary=" + map[bool]string{true: "true", false: "false"}[vary]}
	go func() {
		code := Main(ctx, args, io.Discard, errW)
		errW.Close()
		exited <- code
	}()
	lines := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(errR).ReadString('\n')
		lines <- line
		io.Copy(io.Discard, errR)
	}()
	var line string
	select {
	case line = <-lines:
	case <-time.After(30 * time.Second):
		t.Fatal("serve said nothing for 30s")
	}
	m := served.FindStringSubmatch(line)
	if m == nil || m[1] != "8" {
		t.Fatalf("serve said %q, want its address and last resourceVersion 8", line)
	}
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Get(m[2] + "/api/v1/pods?fieldSelector=spec.nodeName%3Dnode-1")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var list struct {
		Items []struct {
			Status struct {
				PodIP string `json:"podIP"`
			} `json:"status"`
		} `json:"items"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil {
		t.Fatalf("list: %v", err)
	}
	if len(list.Items) != 3 {
		t.Fatalf("list holds %d pods, want 3", len(list.Items))
	}
	cancel()
	select {
	case code := <-exited:
		if code != tool.ExitOK {
			t.Fatalf("serve exited %d after its context ended, want %d", code, tool.ExitOK)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve still running 30s after its context ended")
	}
	return []string{list.Items[0].Status.PodIP, list.Items[1].Status.PodIP}
}

func TestExitStatus(t *testing.T) {
	out := filepath.Join(t.TempDir(), "stream.json")
	for _, tc := range []struct {
		name string
		args []string
		want int
	}{
		{"no command", nil, tool.ExitUsage},
		{"unknown command", []string{"sync"}, tool.ExitUsage},
		{"unknown flag", []string{"serve", "--nodes", "3"}, tool.ExitUsage},
		{"stray argument", []string{"stream", "--out", out, "extra"}, tool.ExitUsage},
		{"no --out", []string{"stream", "--pod", podFile}, tool.ExitUsage},
		{"help", []string{"serve", "--help"}, tool.ExitOK},
		{"no template", []string{"stream", "--pod", "missing.json", "--out", out}, tool.ExitError},
		{"no pods", []string{"stream", "--pod", podFile, "--pods", "0", "--out", out}, tool.ExitError},
	} {
		var stderr bytes.Buffer
		if got := Main(context.Background(), tc.args, io.Discard, &stderr); got != tc.want {
			t.Errorf("%s: exit %d, want %d; stderr:\n%s", tc.name, got, tc.want, stderr.String())
		}
	}
}
