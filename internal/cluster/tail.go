package cluster

import "sync"

// tailBuffer is an io.Writer that keeps only the last max bytes written,
// so a chatty process cannot grow memory without bound. It is safe for
// concurrent use: a process's stdout and stderr write to it at once.
type tailBuffer struct {
	mu      sync.Mutex
	max     int
	buf     []byte
	dropped int64
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := len(p)
	if len(p) >= b.max {
		b.dropped += int64(len(b.buf) + len(p) - b.max)
		b.buf = append(b.buf[:0], p[len(p)-b.max:]...)
		return n, nil
	}
	if over := len(b.buf) + len(p) - b.max; over > 0 {
		b.dropped += int64(over)
		b.buf = append(b.buf[:0], b.buf[over:]...)
	}
	b.buf = append(b.buf, p...)
	return n, nil
}

// String returns the kept tail, prefixed by how much was dropped.
func (b *tailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.dropped == 0 {
		return string(b.buf)
	}
	return "[... earlier output dropped ...]\n" + string(b.buf)
}
