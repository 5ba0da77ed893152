package apiwire

import (
	"encoding/json"
	"errors"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A message holding quotes, a backslash, a control byte and text that Go's %q
// would escape differently from JSON reads back as sent.
func TestStatusEscapesAsJSON(t *testing.T) {
	msg := "no exchange for GET /api/v1/pods?x=\"a\\b\"\x01 ünïcode \u2028 <tag> \xff"
	st := Status{Code: 404, Reason: "NotFound", Message: msg, Details: &Details{}}
	var got map[string]any
	if err := json.Unmarshal(st.JSON(), &got); err != nil {
		t.Fatalf("Status JSON does not parse: %v\n%s", err, st.JSON())
	}
	want := map[string]any{"kind": "Status", "apiVersion": "v1", "metadata": map[string]any{}, "status": "Failure",
		"message": "no exchange for GET /api/v1/pods?x=\"a\\b\"\x01 ünïcode \u2028 <tag> \ufffd", "reason": "NotFound",
		"details": map[string]any{}, "code": float64(404)}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Status (-want +got):\n%s", d)
	}
}

func TestStatusWrite(t *testing.T) {
	rec := httptest.NewRecorder()
	BadRequest(`resourceVersion: Invalid value: "x"`).Write(rec)
	if rec.Code != 400 || rec.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("got %d %q, want 400 application/json", rec.Code, rec.Header().Get("Content-Type"))
	}
	want := `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"resourceVersion: Invalid value: \"x\"","reason":"BadRequest","code":400}` + "\n"
	if got := rec.Body.String(); got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestEventLines(t *testing.T) {
	for _, c := range []struct{ name, got, want string }{
		{"event", string(Event(Added, []byte(`{"a":1}`))), `{"type":"ADDED","object":{"a":1}}` + "\n"},
		{"error", string(ErrorEvent(Gone("too old resource version: 1 (5)"))),
			`{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 1 (5)","reason":"Expired","code":410}}` + "\n"},
		{"initial-events-end", string(Event(Bookmark, PodBookmark("215", true))),
			`{"type":"BOOKMARK","object":{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"215","annotations":{"k8s.io/initial-events-end":"true"}},"spec":{"containers":null},"status":{}}}` + "\n"},
		{"bookmark", string(PodBookmark("221", false)),
			`{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"221"},"spec":{"containers":null},"status":{}}`},
	} {
		if c.got != c.want {
			t.Errorf("%s: got %s, want %s", c.name, c.got, c.want)
		}
	}
}

func TestListPage(t *testing.T) {
	n := int64(3)
	got := string(ListPage("PodList", ListMeta{ResourceVersion: "7", Continue: "tok", RemainingItemCount: &n},
		[][]byte{[]byte(`{"a":1}`), []byte(`{"b":2}`)}))
	want := `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"7","continue":"tok","remainingItemCount":3},"items":[{"a":1},{"b":2}]}`
	if got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if got, want := string(ListPage("PodList", ListMeta{ResourceVersion: "7"}, nil)),
		`{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"7"},"items":[]}`; got != want {
		t.Errorf("empty: got %s, want %s", got, want)
	}
}

func TestContinueRoundTrip(t *testing.T) {
	c := Continue{RV: "216", After: "shop/web-2"}
	got, err := DecodeContinue(c.Encode())
	if err != nil || got != c {
		t.Fatalf("got %+v, %v; want %+v", got, err, c)
	}
	for _, bad := range []string{"", "%%%", "bm90IGpzb24", Continue{After: "x"}.Encode()} {
		if _, err := DecodeContinue(bad); !errors.Is(err, ErrBadContinue) {
			t.Errorf("DecodeContinue(%q): got %v, want ErrBadContinue", bad, err)
		}
	}
}
