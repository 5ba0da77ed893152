package rest

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func mustClient(t *testing.T, cfg Config) *Client {
	t.Helper()
	c, err := NewClient(cfg)
	if err != nil {
		t.Fatalf("NewClient(%+v): %v", cfg, err)
	}
	return c
}

func TestRequestURL(t *testing.T) {
	c := mustClient(t, Config{Host: "https://h:6443"})
	for _, tc := range []struct {
		name string
		req  *Request
		want string
	}{
		{"all namespaces", c.Get().Resource("pods"), "https://h:6443/api/v1/pods"},
		{"empty namespace is all namespaces", c.Get().Namespace("").Resource("pods"), "https://h:6443/api/v1/pods"},
		{"one namespace", c.Get().Namespace("kube-system").Resource("pods"), "https://h:6443/api/v1/namespaces/kube-system/pods"},
		{"name", c.Get().Namespace("ns").Resource("pods").Name("web-0"), "https://h:6443/api/v1/namespaces/ns/pods/web-0"},
		{"name is one path segment", c.Get().Namespace("ns").Resource("pods").Name("../x y"), "https://h:6443/api/v1/namespaces/ns/pods/..%2Fx%20y"},
		{"legacy watch prefix", c.Get().Prefix("watch").Namespace("ns").Resource("pods"), "https://h:6443/api/v1/watch/namespaces/ns/pods"},
		{"legacy watch all namespaces", c.Get().Prefix("watch").Resource("pods"), "https://h:6443/api/v1/watch/pods"},
		{"group path", c.Get().AbsPath("/apis/apps/v1").Namespace("ns").Resource("deployments"), "https://h:6443/apis/apps/v1/namespaces/ns/deployments"},
		{
			"every parameter",
			c.Get().Resource("pods").
				FieldSelector(OneTermEqualSelector("spec.nodeName", "node-a")).
				LabelSelector("app=web").
				ResourceVersion("123").
				ResourceVersionMatch("NotOlderThan").
				TimeoutSeconds(300).
				Limit(500).
				Continue("tok").
				AllowWatchBookmarks(true).
				SendInitialEvents(true).
				Watch(true).
				Param("pretty", "true"),
			"https://h:6443/api/v1/pods?allowWatchBookmarks=true&continue=tok&fieldSelector=spec.nodeName%3Dnode-a" +
				"&labelSelector=app%3Dweb&limit=500&pretty=true&resourceVersion=123&resourceVersionMatch=NotOlderThan" +
				"&sendInitialEvents=true&timeoutSeconds=300&watch=true",
		},
		{
			"field selector value with , = and backslash",
			c.Get().Resource("pods").FieldSelector(OneTermEqualSelector("spec.nodeName", `a,b=c\d`)),
			"https://h:6443/api/v1/pods?fieldSelector=spec.nodeName%3Da%5C%2Cb%5C%3Dc%5C%5Cd",
		},
		{
			"query characters",
			c.Get().Resource("pods").LabelSelector("tier in (a, b)").Continue("x&y#z+/="),
			"https://h:6443/api/v1/pods?continue=x%26y%23z%2B%2F%3D&labelSelector=tier+in+%28a%2C+b%29",
		},
		{"setter replaces", c.Get().Resource("pods").Limit(1).Limit(2), "https://h:6443/api/v1/pods?limit=2"},
		{"param repeats", c.Get().Resource("pods").Param("x", "1").Param("x", "2"), "https://h:6443/api/v1/pods?x=1&x=2"},
		{"switches off", c.Get().Resource("pods").Watch(true).Watch(false).AllowWatchBookmarks(true).AllowWatchBookmarks(false), "https://h:6443/api/v1/pods"},
		{"sendInitialEvents false is sent", c.Get().Resource("pods").SendInitialEvents(false), "https://h:6443/api/v1/pods?sendInitialEvents=false"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.req.URL().String(); got != tc.want {
				t.Errorf("URL() = %s, want %s", got, tc.want)
			}
		})
	}
}

func TestHostForms(t *testing.T) {
	for _, tc := range []struct{ host, want string }{
		{"h:6443", "https://h:6443/api/v1/pods"},
		{"https://h:6443/", "https://h:6443/api/v1/pods"},
		{"http://127.0.0.1:8080", "http://127.0.0.1:8080/api/v1/pods"},
		{"https://rancher/k8s/clusters/c-1", "https://rancher/k8s/clusters/c-1/api/v1/pods"},
	} {
		t.Run(tc.host, func(t *testing.T) {
			c := mustClient(t, Config{Host: tc.host})
			if got := c.Get().Resource("pods").URL().String(); got != tc.want {
				t.Errorf("URL() = %s, want %s", got, tc.want)
			}
		})
	}
}

func TestNewClientRejects(t *testing.T) {
	for _, tc := range []struct{ name, host, wantIn string }{
		{"no host", "", "no host"},
		{"other scheme", "ftp://h", "scheme"},
		{"credentials", "https://user:secret@h", "credentials"},
		{"query", "https://h?x=1", "query"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewClient(Config{Host: tc.host})
			if err == nil {
				t.Fatalf("NewClient(%q) succeeded, want an error", tc.host)
			}
			if strings.Contains(err.Error(), "secret") {
				t.Errorf("error %q leaks the password", err)
			}
			if !strings.Contains(err.Error(), tc.wantIn) {
				t.Errorf("error %q does not mention %q", err, tc.wantIn)
			}
		})
	}
}

func TestHostIsACopy(t *testing.T) {
	c := mustClient(t, Config{Host: "https://h"})
	c.Host().Host = "evil"
	if got := c.Get().URL().Host; got != "h" {
		t.Errorf("host after changing Host()'s result = %q, want h", got)
	}
}

func TestEscapeFieldValue(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"node-a", "node-a"},
		{"a,b", `a\,b`},
		{"a=b", `a\=b`},
		{`a\b`, `a\\b`},
		{`\,=`, `\\\,\=`},
		{"a!=b", `a!\=b`},
		{"nœud", "nœud"},
	} {
		if got := EscapeFieldValue(tc.in); got != tc.want {
			t.Errorf("EscapeFieldValue(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if diff := cmp.Diff(`spec.nodeName=a\,b`, OneTermEqualSelector("spec.nodeName", "a,b")); diff != "" {
		t.Errorf("OneTermEqualSelector (-want +got):\n%s", diff)
	}
}
