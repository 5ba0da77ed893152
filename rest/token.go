package rest

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"time"
)

// tokenSource yields the bearer token for each request. A file-backed token is
// re-read only when a stat shows the file changed, which costs one syscall per
// request and no read.
type tokenSource struct {
	static string
	file   string

	mu      sync.Mutex
	size    int64
	modTime time.Time
	cached  string
}

func newTokenSource(static, file string) *tokenSource {
	return &tokenSource{static: static, file: file}
}

// token returns the current token, or "" for none.
func (s *tokenSource) token() (string, error) {
	if s.file == "" {
		return s.static, nil
	}
	fi, err := os.Stat(s.file)
	if err != nil {
		return "", fmt.Errorf("bearer token file: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if fi.Size() == s.size && fi.ModTime().Equal(s.modTime) && s.cached != "" {
		return s.cached, nil
	}
	b, err := os.ReadFile(s.file)
	if err != nil {
		return "", fmt.Errorf("bearer token file: %w", err)
	}
	tok := strings.TrimSpace(string(b))
	if tok == "" {
		return "", fmt.Errorf("bearer token file %s is empty", s.file)
	}
	s.cached, s.size, s.modTime = tok, fi.Size(), fi.ModTime()
	return tok, nil
}
