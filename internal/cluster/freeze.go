package cluster

import (
	"errors"
	"testing"
)

// errNotRunning is wrapped in a ProcessError when a freeze finds no apiserver.
var errNotRunning = errors.New("not running")

// FreezeAPIServer stops kube-apiserver in its tracks with SIGSTOP, as a
// server wedged by a long GC pause, a hung node or a debugger would be:
// its connections stay open (the kernel keeps them and acknowledges what
// clients send) but nothing is answered or sent, not even a watch's
// bookmark or its end at timeoutSeconds. ThawAPIServer lets it go on; a
// frozen apiserver is thawed before it is stopped, so Close always ends
// it. Freezing a frozen apiserver does nothing.
func (c *Cluster) FreezeAPIServer() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.apiserver == nil {
		return &ProcessError{Name: "kube-apiserver", Op: "freeze", Err: errNotRunning}
	}
	if c.frozen {
		return nil
	}
	if err := pauseProcess(c.apiserver.cmd.Process); err != nil {
		return &ProcessError{Name: "kube-apiserver", Op: "freeze", Err: err}
	}
	c.frozen = true
	return nil
}

// ThawAPIServer lets a frozen apiserver go on with SIGCONT: its timers
// fire late, all at once. Thawing one that is not frozen does nothing.
func (c *Cluster) ThawAPIServer() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.thawLocked()
}

func (c *Cluster) thawLocked() error {
	if !c.frozen || c.apiserver == nil {
		c.frozen = false
		return nil
	}
	if err := resumeProcess(c.apiserver.cmd.Process); err != nil {
		return &ProcessError{Name: "kube-apiserver", Op: "thaw", Err: err}
	}
	c.frozen = false
	return nil
}

// FreezeAPIServerForTest freezes the apiserver for t and thaws it when t
// ends, whatever happened; the test may thaw it earlier itself.
func (c *Cluster) FreezeAPIServerForTest(t testing.TB) {
	t.Helper()
	if err := c.FreezeAPIServer(); err != nil {
		t.Fatalf("freeze the apiserver: %v", err)
	}
	t.Cleanup(func() {
		if err := c.ThawAPIServer(); err != nil {
			t.Errorf("thaw the apiserver: %v", err)
		}
	})
}
