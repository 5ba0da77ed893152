package cluster

import (
	"errors"
	"testing"
)

// TestFreezeWithoutAPIServer checks the freeze's contract when there is
// nothing to freeze: a typed error naming the operation, and a thaw that
// does nothing. The freeze of a running apiserver is exercised against the
// real one by internal/e2e's TestStallAgainstAPIServer.
func TestFreezeWithoutAPIServer(t *testing.T) {
	c := &Cluster{}
	err := c.FreezeAPIServer()
	var pe *ProcessError
	if !errors.As(err, &pe) || pe.Op != "freeze" || !errors.Is(err, errNotRunning) {
		t.Fatalf("freeze with no apiserver: %v, want a *ProcessError of op freeze wrapping errNotRunning", err)
	}
	if c.frozen {
		t.Error("marked frozen after a failed freeze")
	}
	if err := c.ThawAPIServer(); err != nil {
		t.Errorf("thaw of an apiserver never frozen: %v", err)
	}
}
