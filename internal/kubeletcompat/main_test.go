package kubeletcompat

import (
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/go-logr/logr/funcr"
	"k8s.io/klog/v2"
)

// kubeletLog keeps the tail of what the kubelet's code logs through klog
// (its reflector's warnings, mostly), so that a failed comparison can show
// it; the rest of the time it stays out of the test's output, where the
// cut-off kubelet sources (see wire) would fill it with retries.
var kubeletLog = &tailLog{max: 64 << 10}

func TestMain(m *testing.M) {
	klog.SetLogger(funcr.New(kubeletLog.add, funcr.Options{}))
	os.Exit(m.Run())
}

// tailLog keeps the last max bytes of log lines. Safe for concurrent use.
type tailLog struct {
	max int

	mu  sync.Mutex
	buf []string
	n   int
}

func (l *tailLog) add(prefix, args string) {
	line := strings.TrimSpace(prefix + " " + args)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = append(l.buf, line)
	l.n += len(line)
	for l.n > l.max && len(l.buf) > 1 {
		l.n -= len(l.buf[0])
		l.buf = l.buf[1:]
	}
}

func (l *tailLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.buf, "\n")
}
