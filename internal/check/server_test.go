package check

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/podwatch/podwatch/internal/model"
	"github.com/podwatch/podwatch/rest"
)

// testWait bounds every wait for a battery run.
const testWait = 3 * time.Minute

// modelServer serves the model apiserver (as serve --simulate does) with
// its pods churning, until the test ends.
func modelServer(t *testing.T, opts model.Options, wrap func(*model.Server) http.Handler) string {
	t.Helper()
	srv := model.NewServer(model.NewHistory(100), opts)
	t.Cleanup(srv.Close)
	ch := model.NewChurner(srv, rand.New(rand.NewPCG(1, 2)), model.ChurnOptions{MaxGap: 300 * time.Millisecond, Changes: 100000})
	if err := ch.Populate(); err != nil {
		t.Fatal(err)
	}
	var h http.Handler = srv
	if wrap != nil {
		h = wrap(srv)
	}
	hs := httptest.NewServer(h)
	t.Cleanup(hs.Close)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		ch.Churn(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return hs.URL
}

// runBattery runs the battery against url and returns the outcomes by name.
func runBattery(t *testing.T, url string, opts Options) map[string]Outcome {
	t.Helper()
	opts.Config = rest.Config{Host: url}
	ctx, cancel := context.WithTimeout(context.Background(), testWait)
	defer cancel()
	outs, err := Run(ctx, opts)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	m := map[string]Outcome{}
	for _, o := range outs {
		m[o.Name] = o
		b, _ := json.Marshal(o.Evidence.Summary)
		t.Logf("%-30s %-15s %s", o.Name, o.Result, b)
	}
	return m
}

func TestScratchModel(t *testing.T) {
	url := modelServer(t, model.Options{GoneAsEvent: true, BookmarkEvery: 500 * time.Millisecond}, nil)
	runBattery(t, url, Options{WatchSeconds: 2, Grace: 3 * time.Second})
}
