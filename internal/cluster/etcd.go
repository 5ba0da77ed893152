package cluster

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strconv"
	"time"
)

// errAlreadyRunning is returned when starting a process that runs.
var errAlreadyRunning = errors.New("already running")

// errClosed is returned when starting a process on a closed Cluster.
var errClosed = errors.New("cluster closed")

// StartEtcd starts etcd on the cluster's ports and data folder (keeping
// the data of an earlier run) and waits until its /health says true or
// ctx ends. It fails if etcd runs already.
func (c *Cluster) StartEtcd(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return &ProcessError{Name: "etcd", Op: "start", Err: errClosed}
	}
	if c.etcd != nil {
		return &ProcessError{Name: "etcd", Op: "start", Err: errAlreadyRunning}
	}
	args := []string{
		"--name=podwatch",
		"--data-dir=" + c.etcdDataDir(),
		"--listen-client-urls=" + c.EtcdURL,
		"--advertise-client-urls=" + c.EtcdURL,
		"--listen-peer-urls=" + c.peerURL,
		"--initial-advertise-peer-urls=" + c.peerURL,
		"--initial-cluster=podwatch=" + c.peerURL,
		// Test data is thrown away: skipping fsync saves seconds on a
		// shared disk and changes nothing the tests look at.
		"--unsafe-no-fsync",
		"--log-level=warn",
	}
	p, err := startProcess("etcd", filepath.Join(c.binDir, "etcd"), args, c.logWriter(&c.etcdLog))
	if err != nil {
		return err
	}
	if err := c.waitReady(ctx, p, &c.etcdLog, c.etcdHealthy); err != nil {
		return errors.Join(err, p.stop(EtcdStopGrace))
	}
	c.etcd = p
	return nil
}

// StopEtcd stops etcd (SIGTERM, SIGKILL after EtcdStopGrace) and waits
// for it to end; its data stays for a later StartEtcd. Stopping a stopped etcd
// does nothing. The apiserver keeps running and retries its connection.
func (c *Cluster) StopEtcd() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.etcd == nil {
		return nil
	}
	err := c.etcd.stop(EtcdStopGrace)
	c.etcd = nil
	return err
}

func (c *Cluster) etcdHealthy(ctx context.Context) (bool, string) {
	var h struct {
		Health string `json:"health"`
	}
	status, body, err := c.getJSON(ctx, c.plain, c.EtcdURL+"/health", &h)
	if err != nil {
		return false, err.Error()
	}
	return status == http.StatusOK && h.Health == "true", body
}

// waitReady polls ready until it says yes, the process exits, or
// opts.ReadyTimeout or ctx ends; errors carry the process's log tail and
// the last answer of the probe.
func (c *Cluster) waitReady(ctx context.Context, p *process, log *tailBuffer, ready func(context.Context) (bool, string)) error {
	ctx, cancel := context.WithTimeout(ctx, c.opts.ReadyTimeout)
	defer cancel()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	last := "no answer yet"
	for {
		if done, err := p.exited(); done {
			return &ProcessError{Name: p.name, Op: "wait ready", Err: err, Log: log.String()}
		}
		probeCtx, probeCancel := context.WithTimeout(ctx, 5*time.Second)
		ok, answer := ready(probeCtx)
		probeCancel()
		if ok {
			return nil
		}
		last = answer
		select {
		case <-ctx.Done():
			err := fmt.Errorf("%w (last probe answer: %.2000s)", ctx.Err(), last)
			return &ProcessError{Name: p.name, Op: "wait ready", Err: err, Log: log.String()}
		case <-p.done:
		case <-tick.C:
		}
	}
}

// getJSON GETs url and decodes a 2xx JSON body into out. It returns the
// status and the body text, for error messages.
func (c *Cluster) getJSON(ctx context.Context, client *http.Client, url string, out any) (int, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, "", err
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return resp.StatusCode, "", err
	}
	if resp.StatusCode/100 == 2 && out != nil {
		if err := json.Unmarshal(body, out); err != nil {
			return resp.StatusCode, string(body), err
		}
	}
	return resp.StatusCode, string(body), nil
}

// CompactEtcd compacts etcd's history up to its current revision, which it
// returns; etcd then refuses watches and reads older than that revision.
// The apiserver's watch cache still serves older RVs it holds: restart the
// apiserver afterwards (or run with WatchCache off) to make a watch from an
// old RV fail with 410. It uses etcd's JSON gateway.
func (c *Cluster) CompactEtcd(ctx context.Context) (rev int64, err error) {
	// A range over one key answers with the store's current revision in
	// its header, whether or not the key exists.
	var rangeResp struct {
		Header struct {
			Revision json.Number `json:"revision"`
		} `json:"header"`
	}
	if err := c.etcdPost(ctx, "/v3/kv/range", map[string]any{"key": "AA=="}, &rangeResp); err != nil {
		return 0, fmt.Errorf("cluster: compact etcd: read revision: %w", err)
	}
	rev, err = strconv.ParseInt(rangeResp.Header.Revision.String(), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("cluster: compact etcd: read revision: %w", err)
	}
	body := map[string]any{"revision": strconv.FormatInt(rev, 10), "physical": true}
	if err := c.etcdPost(ctx, "/v3/kv/compaction", body, nil); err != nil {
		return 0, fmt.Errorf("cluster: compact etcd at revision %d: %w", rev, err)
	}
	return rev, nil
}

func (c *Cluster) etcdPost(ctx context.Context, path string, in, out any) error {
	b, err := json.Marshal(in)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.EtcdURL+path, bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.plain.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		return &HTTPError{Method: http.MethodPost, Path: path, StatusCode: resp.StatusCode, Body: string(body)}
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(body, out)
}
