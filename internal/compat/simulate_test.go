package compat

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/rest"
)

// simulateWatchFor is how long a client watches `serve --simulate` before
// the suite asks it to agree with the server: long enough for several changes
// (the simulation makes one every 6 s at most).
const simulateWatchFor = 20 * time.Second

// TestKubeletSourceSimulate runs client-go's reflector, as the kubelet runs
// it, against `podwatch serve --simulate` in each client mode. The truth is
// the server's own account, read by a plain list and watch that start first:
// every push must be a state that account passed through, in order, and the
// client must come to agree with the server's current state.
//
// Faults strike the client's first watch (the observer's is the first the
// server sees, so on=watch,nth=2), on one seed.
func TestKubeletSourceSimulate(t *testing.T) {
	type run struct {
		seed  int
		fault string
	}
	runs := []run{{1, ""}, {2, ""}}
	for _, f := range []string{"cut:events=1", "half-event:events=1", "gone-event:events=1", "garbage:events=1", "stall:events=1,wait=1s"} {
		runs = append(runs, run{1, f + ",on=watch,nth=2"})
	}
	for _, r := range runs {
		for _, mode := range clientModes {
			t.Run(fmt.Sprintf("seed%d/%s/%s", r.seed, faultName(r.fault), mode.name), func(t *testing.T) {
				t.Parallel()
				args := []string{"--simulate", "--seed", strconv.Itoa(r.seed)}
				if r.fault != "" {
					args = append(args, "--fault", r.fault)
				}
				srv := startServe(t, args...)
				truth := observe(t, srv.URL, kubeletNode)
				log := newPushLog()
				cfg := &rest.Config{Host: srv.URL, WrapTransport: log.recordRequests}
				runReflector(t, newKubeletReflector(t, cfg, kubeletNode, mode, log.push))
				time.Sleep(simulateWatchFor)
				agreed := false
				deadline := time.Now().Add(convergeBound)
				for !agreed && time.Now().Before(deadline) {
					pushes, _ := log.snapshot()
					agreed = len(pushes) > 0 && maps.Equal(pushes[len(pushes)-1], truth.current().pods)
					if !agreed {
						time.Sleep(100 * time.Millisecond)
					}
				}
				pushes, _ := log.snapshot()
				tl := truth.timeline()
				if !usedMode(mode, log.sent()) {
					t.Errorf("client-go did not read the server in mode %s; its requests: %v", mode.name, log.sent())
				}
				checkFormat(t, mode, log)
				if len(tl) < 3 {
					t.Errorf("the server's account shows %d states in %v; the simulation should have changed node %s more", len(tl), simulateWatchFor, kubeletNode)
				}
				if _, err := tl.check(pushes); err != nil {
					t.Errorf("%v\nall pushes: %v\nserver's states: %v", err, pushes, tl)
				}
				t.Logf("%d pushes; the server went through %d states of %s", len(pushes), len(tl), kubeletNode)
				if r.fault != "" && !strings.Contains(srv.log.String(), ": fault ") {
					t.Errorf("the fault %s never struck, so this run tested nothing of it", r.fault)
				}
				if !agreed {
					t.Errorf("client-go's last push never equalled the server's current state within %v after %v; pushes: %v\nserver's states: %v", convergeBound, simulateWatchFor, pushes, tl)
				}
			})
		}
	}
}

// observer is the server's own account of node's pods: a list, then a watch
// from its resourceVersion, resumed from the last one seen if it ends.
type observer struct {
	mu     sync.Mutex
	states timeline
	err    error
}

func (o *observer) add(s state) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.states = o.states.add(s)
}

func (o *observer) current() state {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.states) == 0 {
		return state{rv: -1}
	}
	return o.states.final()
}

func (o *observer) timeline() timeline {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append(timeline(nil), o.states...)
}

// observe lists node's pods on server and watches them until the test ends.
func observe(t *testing.T, server, node string) *observer {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	o := &observer{}
	sel := "spec.nodeName=" + node
	var list wireObject
	if err := getJSON(ctx, server+"/api/v1/pods?"+url.Values{"fieldSelector": {sel}}.Encode(), &list); err != nil {
		cancel()
		t.Fatalf("observer list: %v", err)
	}
	rv, err := parseRV(list.Metadata.ResourceVersion)
	if err != nil {
		cancel()
		t.Fatalf("observer list resourceVersion %q: %v", list.Metadata.ResourceVersion, err)
	}
	pods := podSet{}
	for _, it := range list.Items {
		prv, err := parseRV(it.Metadata.ResourceVersion)
		if err != nil {
			cancel()
			t.Fatalf("observer list item resourceVersion %q: %v", it.Metadata.ResourceVersion, err)
		}
		pods[it.Metadata.Namespace+"/"+it.Metadata.Name] = prv
	}
	o.add(state{rv, pods})
	done := make(chan struct{})
	answered := make(chan struct{})
	var once sync.Once
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			if err := o.watch(ctx, server, sel, func() { once.Do(func() { close(answered) }) }); err != nil && ctx.Err() == nil {
				o.mu.Lock()
				o.err = err
				o.mu.Unlock()
				return
			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		<-done
		if o.err != nil {
			t.Errorf("observer watch: %v", o.err)
		}
	})
	// The observer's watch is answered before the client starts, so a fault
	// planned for the second watch strikes the client's.
	select {
	case <-answered:
	case <-done:
	case <-time.After(serveStartTimeout):
		t.Fatalf("the observer's watch was not answered within %v", serveStartTimeout)
	}
	return o
}

// watch follows one watch from the newest state seen until it ends.
func (o *observer) watch(ctx context.Context, server, sel string, answered func()) error {
	from := o.current()
	q := url.Values{"fieldSelector": {sel}, "watch": {"true"}, "resourceVersion": {strconv.FormatInt(from.rv, 10)},
		"allowWatchBookmarks": {"true"}, "timeoutSeconds": {"600"}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, server+"/api/v1/pods?"+q.Encode(), nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("watch from %d: HTTP %d", from.rv, resp.StatusCode)
	}
	answered()
	dec := json.NewDecoder(bufio.NewReader(resp.Body))
	cur := clonePods(from.pods)
	for {
		var ev struct {
			Type   string     `json:"type"`
			Object wireObject `json:"object"`
		}
		if err := dec.Decode(&ev); err != nil {
			return nil // the watch ended; resume from the newest state
		}
		m := ev.Object.Metadata
		rv, err := parseRV(m.ResourceVersion)
		if err != nil {
			return fmt.Errorf("event %s resourceVersion %q: %w", ev.Type, m.ResourceVersion, err)
		}
		switch ev.Type {
		case "ADDED", "MODIFIED":
			cur = clonePods(cur)
			cur[m.Namespace+"/"+m.Name] = rv
		case "DELETED":
			cur = clonePods(cur)
			delete(cur, m.Namespace+"/"+m.Name)
		case "BOOKMARK":
			continue
		default:
			return fmt.Errorf("watch from %d: a %s event", from.rv, ev.Type)
		}
		o.add(state{rv, cur})
	}
}

func getJSON(ctx context.Context, u string, into any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: HTTP %d", u, resp.StatusCode)
	}
	return json.NewDecoder(resp.Body).Decode(into)
}
