package base

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/podwatch/podwatch/internal/cli/clitest"
)

func TestMaskHeaders(t *testing.T) {
	h := http.Header{}
	h.Set("Authorization", "Bearer "+clitest.Token)
	h.Set("Proxy-Authorization", "Basic dXNlcjpwYXNz")
	h.Set("Cookie", "session=abc")
	h.Set("Accept", "application/json")
	h.Set("Impersonate-User", "jane")
	got := formatHeaders(h)
	want := "\n    Accept: application/json" +
		"\n    Authorization: Bearer <masked>" +
		"\n    Cookie: <masked>" +
		"\n    Impersonate-User: jane" +
		"\n    Proxy-Authorization: Basic <masked>"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("headers (-want +got):\n%s", diff)
	}
}

func TestCurlCommand(t *testing.T) {
	req := httptest.NewRequest("GET", "https://apiserver.example:6443/api/v1/pods?fieldSelector=spec.nodeName%3Dnode-1&limit=500", nil)
	req.Header = http.Header{}
	req.Header.Set("Authorization", "Bearer "+clitest.Token)
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Impersonate-User", "o'brien")
	got := curlCommand(req)
	want := `curl -v -XGET -H 'Accept: application/json' -H 'Authorization: Bearer <masked>' -H 'Impersonate-User: o'\''brien'` +
		` 'https://apiserver.example:6443/api/v1/pods?fieldSelector=spec.nodeName%3Dnode-1&limit=500'`
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("curl command (-want +got):\n%s", diff)
	}
}

func TestQuote(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"a":1}` + "\n", `{"a":1}\n`},
		{"bell\x07 esc\x1b[2J", `bell\u0007 esc\u001b[2J`},
		{"tab\there", `tab\there`},
		{"naïve", "naïve"},
	}
	for _, tt := range tests {
		if got := quote([]byte(tt.in)); got != tt.want {
			t.Errorf("quote(%q): got %q, want %q", tt.in, got, tt.want)
		}
	}
	long := strings.Repeat("x", bodyLogLimit+10)
	if got := cutBody([]byte(long), bodyLogLimit); !strings.HasSuffix(got, " (cut short)") || len(got) != bodyLogLimit+len(" (cut short)") {
		t.Errorf("cutBody of %d bytes: got %d bytes, want %d and the cut marked", len(long), len(got), bodyLogLimit)
	}
}
