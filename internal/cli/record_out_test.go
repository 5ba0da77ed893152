package cli

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/podwatch/podwatch/internal/cli/base"
)

// An --out that cannot be written is refused before the first request, not
// after a run whose recording would then be lost.
func TestRecordRefusesAnUnwritableOutFirst(t *testing.T) {
	var requests atomic.Int32
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		http.NotFound(w, r)
	}))
	defer hs.Close()
	file := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := run(t, "record", "--server", hs.URL, "--node", "n", "--max-events", "1", "--out", filepath.Join(file, "fixture"))
	if r.code != base.ExitError || !strings.Contains(r.stderr, "--out "+filepath.Join(file, "fixture")) || !strings.Contains(r.stderr, "not a directory") {
		t.Fatalf("exit %d, stderr %q: want exit 1 naming --out and why", r.code, r.stderr)
	}
	if n := requests.Load(); n != 0 {
		t.Fatalf("%d requests sent before --out was refused", n)
	}
}
