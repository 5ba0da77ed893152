package trace

import (
	"net/url"
	"strings"
	"testing"
)

// TestParamsInContext checks that one value is explained by what it asks of
// the server in the request it is part of.
func TestParamsInContext(t *testing.T) {
	tests := []struct {
		name, typ, query, param string
		want                    string // a phrase the explanation must hold
	}{
		{"rv 0 on a list", "list", "resourceVersion=0&limit=500", "resourceVersion", "may be stale"},
		{"limit beside rv 0", "list", "resourceVersion=0&limit=500", "limit", "ignored"},
		{"rv 0 on a watch", "watch", "watch=true&resourceVersion=0", "resourceVersion", "synthetic ADDED event for every object"},
		{"rv on a watch", "watch", "watch=true&resourceVersion=216", "resourceVersion", "only changes after 216"},
		{"rv on a relist", "list", "resourceVersion=224&resourceVersionMatch=NotOlderThan", "resourceVersion", "not older than 224"},
		{"exact rv", "list", "resourceVersion=224&resourceVersionMatch=Exact", "resourceVersion", "exactly 224"},
		{"legacy rv with limit", "list", "resourceVersion=224&limit=5", "resourceVersion", "legacy meaning: exactly 224"},
		{"unset rv on a list", "list", "limit=500", "resourceVersion", "consistent read"},
		{"unset rv on a watch", "watch", "watch=true", "resourceVersion", "synthetic ADDED event"},
		{"unset rv on a watch list", "watch-list", "watch=true&sendInitialEvents=true", "resourceVersion", "most recent state"},
		{"rv on a watch list", "watch-list", "watch=true&sendInitialEvents=true&resourceVersion=224", "resourceVersion", "not older than 224"},
		{"NotOlderThan on a watch list", "watch-list", "watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan", "resourceVersionMatch", "initial events"},
		{"sendInitialEvents", "watch-list", "watch=true&sendInitialEvents=true", "sendInitialEvents", "k8s.io/initial-events-end"},
		{"bookmarks", "watch", "watch=true&allowWatchBookmarks=true", "allowWatchBookmarks", "BOOKMARK"},
		{"timeout", "watch", "watch=true&timeoutSeconds=300", "timeoutSeconds", "after 300s"},
		{"continue", "list", "continue=abc&limit=5", "continue", "same snapshot"},
		{"node selector", "list", "fieldSelector=spec.nodeName%3Dnode-a", "fieldSelector", "bound to node node-a"},
		{"other selector", "list", "fieldSelector=status.phase%3DRunning", "fieldSelector", "fields match status.phase=Running"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, err := url.ParseQuery(tt.query)
			if err != nil {
				t.Fatal(err)
			}
			var got *Param
			for _, p := range explainParams(tt.typ, q) {
				if p.Name == tt.param {
					got = &p
					break
				}
			}
			if got == nil {
				t.Fatalf("no explanation of %s in %s %q", tt.param, tt.typ, tt.query)
			}
			if !strings.Contains(got.Explain, tt.want) {
				t.Fatalf("%s in %s %q: got %q, want it to say %q", tt.param, tt.typ, tt.query, got.Explain, tt.want)
			}
		})
	}
}

// TestUnsetRVOnlyWhenItMatters checks that a continued page, which must not
// carry a resourceVersion, is not told it lacks one.
func TestUnsetRVOnlyWhenItMatters(t *testing.T) {
	q := url.Values{"continue": {"tok"}, "limit": {"1"}}
	for _, p := range explainParams("list", q) {
		if p.Absent {
			t.Fatalf("a continued page got %+v", p)
		}
	}
}

func TestRequestType(t *testing.T) {
	tests := []struct{ path, query, want string }{
		{"/api/v1/pods", "limit=500", "list"},
		{"/api/v1/pods", "watch=true", "watch"},
		{"/api/v1/pods", "watch=1", "watch"},
		{"/api/v1/watch/pods", "", "watch"},
		{"/api/v1/pods", "watch=true&sendInitialEvents=true", "watch-list"},
		{"/version", "", "other"},
	}
	for _, tt := range tests {
		q, _ := url.ParseQuery(tt.query)
		if got := requestType(tt.path, q); got != tt.want {
			t.Errorf("requestType(%s?%s): got %s, want %s", tt.path, tt.query, got, tt.want)
		}
	}
}
