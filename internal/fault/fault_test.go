package fault

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/podwatch/podwatch/internal/apiwire"
)

func events(n int) []byte {
	var b bytes.Buffer
	for i := 1; i <= n; i++ {
		b.WriteString(`{"type":"ADDED","object":{"metadata":{"name":"p` + string(rune('0'+i)) + `","resourceVersion":"` + string(rune('0'+i)) + `"}}}` + "\n")
	}
	return b.Bytes()
}

// feed writes body through a Writer for f in pieces of size step, stopping at
// the first error, and returns what reached the client and that error.
func feed(t *testing.T, f Fault, body []byte, step int) ([]byte, error) {
	t.Helper()
	rec := httptest.NewRecorder()
	w := NewWriter(context.Background(), rec, f)
	for len(body) > 0 {
		n := min(step, len(body))
		if _, err := w.Write(body[:n]); err != nil {
			return rec.Body.Bytes(), err
		}
		body = body[n:]
	}
	return rec.Body.Bytes(), nil
}

func TestStreamFaults(t *testing.T) {
	body := events(5)
	lines := bytes.SplitAfter(body, []byte("\n"))
	first := func(n int) string { return string(bytes.Join(lines[:n], nil)) }
	for _, tc := range []struct {
		name    string
		spec    string
		want    string
		wantErr error
	}{
		{"cut after 2 events", "cut:events=2", first(2), ErrCut},
		{"cut after 0 events", "cut", "", ErrCut},
		{"cut after 100 bytes", "cut:bytes=100", string(body[:100]), ErrCut},
		{"half of the third event", "half-event:events=2", first(2) + string(lines[2][:len(lines[2])/2]), ErrCut},
		{"410 as an ERROR event after 3", "gone-event:events=3", first(3) + string(apiwire.ErrorEvent(GoneStatus())), ErrEnded},
		{"garbage after 1", "garbage:events=1", first(1) + "\x00\xff}{ not json \x1b[0m\n", ErrCut},
		{"a stall lets every byte through", "stall:events=1,wait=1ms", string(body), nil},
		{"a fault past the end never strikes", "cut:events=9", string(body), nil},
	} {
		f, err := Parse(tc.spec)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tc.spec, err)
		}
		for _, step := range []int{1, 7, 64, len(body)} {
			got, err := feed(t, f, body, step)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("%s, writes of %d: error %v, want %v", tc.name, step, err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, string(got)); diff != "" {
				t.Fatalf("%s, writes of %d: body (-want +got):\n%s", tc.name, step, diff)
			}
		}
	}
}

func TestOversizedFrameIsStreamed(t *testing.T) {
	f := Fault{Kind: Oversized, Events: 1, Size: 1 << 20}
	got, err := feed(t, f, events(3), 10)
	if !errors.Is(err, ErrCut) {
		t.Fatalf("error %v, want ErrCut", err)
	}
	head := string(events(1))
	if !strings.HasPrefix(string(got), head+`{"type":"ADDED"`) {
		t.Fatalf("body starts %q, want the first event then a new frame", got[:min(len(got), 200)])
	}
	if n := bytes.Count(got, []byte("x")); n != 1<<20 {
		t.Fatalf("frame holds %d filler bytes, want %d", n, 1<<20)
	}
	if bytes.Count(got, []byte("\n")) != 1 {
		t.Fatalf("the oversized frame ended with a newline; it must never end")
	}
}

func TestStallAndDripTakeTheirTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		if _, err := feed(t, Fault{Kind: Stall, Events: 2, Wait: time.Hour}, events(4), 5); err != nil {
			t.Fatalf("stall: %v", err)
		}
		if got := time.Since(start); got != time.Hour {
			t.Fatalf("stall took %v of fake time, want 1h", got)
		}
		start = time.Now()
		rest := events(3)[len(events(2)):]
		got, err := feed(t, Fault{Kind: Drip, Events: 2, Wait: time.Second}, events(3), 1000)
		if err != nil {
			t.Fatalf("drip: %v", err)
		}
		if string(got) != string(events(3)) {
			t.Fatalf("drip body %q, want every event", got)
		}
		if want := time.Duration(len(rest)) * time.Second; time.Since(start) != want {
			t.Fatalf("drip took %v, want one second per byte after the boundary (%v)", time.Since(start), want)
		}
	})
}

func TestStallEndsWithTheRequest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		w := NewWriter(ctx, httptest.NewRecorder(), Fault{Kind: Stall, Wait: time.Hour})
		if _, err := w.Write(events(1)); !errors.Is(err, ErrCut) {
			t.Fatalf("stall under a finished request: %v, want ErrCut", err)
		}
	})
}

func TestAnswers(t *testing.T) {
	for _, tc := range []struct {
		spec, retryAfter, ctype string
		code                    int
		body                    string
	}{
		{"gone", "", "application/json", 410, `"reason":"Expired"`},
		{"429:wait=2500ms", "3", "application/json", 429, `"reason":"TooManyRequests"`},
		{"429", "1", "application/json", 429, `"code":429`},
		{"500", "", "application/json", 500, `"reason":"InternalError"`},
		{"html", "", "text/html; charset=utf-8", 503, "<!DOCTYPE html>"},
		{"html:status=502", "", "text/html; charset=utf-8", 502, "Bad Gateway"},
	} {
		f, err := Parse(tc.spec)
		if err != nil {
			t.Fatal(err)
		}
		rec := httptest.NewRecorder()
		if !Answer(rec, f) {
			t.Fatalf("%s: Answer wrote nothing", tc.spec)
		}
		if rec.Code != tc.code || rec.Header().Get("Retry-After") != tc.retryAfter || rec.Header().Get("Content-Type") != tc.ctype {
			t.Fatalf("%s: %d Retry-After %q Content-Type %q, want %d %q %q", tc.spec, rec.Code,
				rec.Header().Get("Retry-After"), rec.Header().Get("Content-Type"), tc.code, tc.retryAfter, tc.ctype)
		}
		if !strings.Contains(rec.Body.String(), tc.body) {
			t.Fatalf("%s: body %q lacks %q", tc.spec, rec.Body, tc.body)
		}
	}
	if Answer(httptest.NewRecorder(), Fault{Kind: Cut}) {
		t.Fatalf("Answer wrote a stream fault")
	}
}

// Over a real HTTP/1.1 connection, Abort after a cut must look to the client
// like a dying server: the events before the cut, then an unexpected EOF.
func TestAbortCutsTheConnection(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		rw.Header().Set("Content-Type", "application/json")
		w := NewWriter(r.Context(), rw, Fault{Kind: Cut, Events: 2})
		if _, err := w.Write(events(4)); errors.Is(err, ErrCut) {
			Abort()
		}
	}))
	defer srv.Close()
	resp, err := srv.Client().Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("read error %v, want unexpected EOF", err)
	}
	if string(got) != string(events(2)) {
		t.Fatalf("client got %q, want the first two events", got)
	}
}

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		spec string
		want Fault
	}{
		{"cut:events=3,on=watch,nth=2", Fault{Kind: Cut, Events: 3, On: "watch", Nth: 2}},
		{"oversized:size=2GiB", Fault{Kind: Oversized, Size: 2 << 30}},
		{"stall:wait=30s,events=1", Fault{Kind: Stall, Wait: 30 * time.Second, Events: 1}},
		{"html:status=502,on=list", Fault{Kind: HTML, Status: 502, On: "list"}},
	} {
		got, err := Parse(tc.spec)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tc.spec, err)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Fatalf("Parse(%q) (-want +got):\n%s", tc.spec, diff)
		}
		back, err := Parse(got.String())
		if err != nil || back != got {
			t.Fatalf("String %q does not parse back: %v %+v", got.String(), err, back)
		}
	}
	for _, bad := range []string{"explode", "cut:events", "cut:events=-1", "cut:on=pods", "stall:wait=soon", "html:status=9", "cut:colour=red", "oversized:size=99999999999GiB"} {
		var se *SpecError
		if _, err := Parse(bad); !errors.As(err, &se) {
			t.Fatalf("Parse(%q) = %v, want a *SpecError", bad, err)
		}
	}
}

func TestPlan(t *testing.T) {
	p := NewPlan(Fault{Kind: Cut, On: "watch", Nth: 2}, Fault{Kind: Gone, On: "list"}, Fault{Kind: Internal, Nth: 4}, Fault{Kind: Stall, Nth: 4})
	var got []string
	for _, kind := range []string{"list", "watch", "watch", "watch", "list", "watch"} {
		f, ok := p.Pick(kind)
		if !ok {
			got = append(got, kind+":-")
			continue
		}
		got = append(got, kind+":"+string(f.Kind))
	}
	// The stall names no kind: a stream fault strikes the 4th watch.
	want := []string{"list:gone", "watch:-", "watch:cut", "watch:500", "list:-", "watch:stall"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("faults per request (-want +got):\n%s", diff)
	}
	if len(p.Pending()) != 0 {
		t.Fatalf("pending %v, want none", p.Pending())
	}
}

func TestLoadScenario(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.yaml")
	os.WriteFile(good, []byte("faults:\n- cut:events=3,on=watch\n- 429:wait=2s,on=list,nth=2\n"), 0o644)
	got, err := LoadScenario(good)
	if err != nil {
		t.Fatal(err)
	}
	want := []Fault{{Kind: Cut, Events: 3, On: "watch"}, {Kind: TooMany, Wait: 2 * time.Second, On: "list", Nth: 2}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("scenario (-want +got):\n%s", diff)
	}
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("faults:\n- cut:events=3\n- boom\n"), 0o644)
	if _, err := LoadScenario(bad); err == nil || !strings.Contains(err.Error(), "fault 2") {
		t.Fatalf("bad scenario error %v, want one naming fault 2", err)
	}
	os.WriteFile(bad, []byte("fault: [cut]\n"), 0o644)
	if _, err := LoadScenario(bad); err == nil {
		t.Fatalf("a misspelt key was accepted")
	}
}
