package rest

import (
	"fmt"
	"os"
	"strings"
	"sync"
)

// tokenSource yields the bearer token for each request. A file-backed token is
// re-read only when a stat shows the file changed, which costs one syscall per
// request and no read.
type tokenSource struct {
	static string
	file   string

	mu     sync.Mutex
	stamp  fileStamp
	cached string
}

func newTokenSource(static, file string) *tokenSource {
	return &tokenSource{static: static, file: file}
}

// token returns the current token, or "" for none.
func (s *tokenSource) token() (string, error) {
	if s.file == "" {
		return s.static, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cached != "" && !s.stamp.changed(s.file) {
		return s.cached, nil
	}
	stamp, err := stampOf(s.file)
	if err != nil {
		return "", fmt.Errorf("bearer token file: %w", err)
	}
	b, err := os.ReadFile(s.file)
	if err != nil {
		return "", fmt.Errorf("bearer token file: %w", err)
	}
	tok := strings.TrimSpace(string(b))
	if tok == "" {
		return "", fmt.Errorf("bearer token file %s is empty", s.file)
	}
	s.cached, s.stamp = tok, stamp
	return tok, nil
}
