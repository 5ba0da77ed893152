package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/podwatch/podwatch/internal/cli/clitest"
	"github.com/podwatch/podwatch/internal/fixture"
)

// scriptedUpstream answers as an apiserver would for the requests
// TestProxyTrace makes: lists at resourceVersion 10, one event per watch
// (a pod named after the client, from its User-Agent), and a 410 ERROR
// event for a watch from resourceVersion 11.
func scriptedUpstream(w http.ResponseWriter, r *http.Request) {
	who := r.UserAgent()
	q := r.URL.Query()
	w.Header().Set("Content-Type", "application/json")
	if q.Get("watch") != "true" {
		io.WriteString(w, `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"10"},"items":[]}`)
		return
	}
	if q.Get("resourceVersion") == "11" {
		io.WriteString(w, `{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","status":"Failure","message":"too old resource version: 11 (12)","reason":"Expired","code":410}}`+"\n")
		return
	}
	fmt.Fprintf(w, `{"type":"ADDED","object":{"kind":"Pod","apiVersion":"v1","metadata":{"name":"pod-of-%s","namespace":"default","resourceVersion":"11"}}}`+"\n", who)
}

type tracedStep struct {
	Kind     string `json:"kind"`
	Req      int    `json:"req"`
	Client   string `json:"client"`
	Decision *struct {
		Step            string `json:"step"`
		ResourceVersion string `json:"resourceVersion"`
		Explain         string `json:"explain"`
	} `json:"decision"`
	Event *struct {
		Type string `json:"type"`
		Name string `json:"name"`
	} `json:"event"`
	Request *struct {
		Headers []struct{ Name, Value string } `json:"headers"`
	} `json:"request"`
}

// TestProxyTrace: two clients through one traced proxy each get their
// steps named, their events are never the other's, and what their requests
// reveal (relist, resume, watch list, backoff) is told as theirs.
func TestProxyTrace(t *testing.T) {
	clitest.Isolate(t)
	const token = "upstream-token-0815"
	server, ca := startTLSUpstream(t, httptest.NewUnstartedServer(http.HandlerFunc(scriptedUpstream)))
	file, page := filepath.Join(t.TempDir(), "trace.jsonl"), filepath.Join(t.TempDir(), "trace.html")
	p := startProxyCmd(t, "--server", server, "--certificate-authority", ca, "--token", token,
		"--listen", "127.0.0.1:0", "--trace-file", file, "--trace-format", "json", "--trace-html", page)
	send := func(client, query string) {
		t.Helper()
		getThrough(t, p.url, client, query, http.Header{"Authorization": {"Bearer client-token-4242"}})
	}
	// a: a list, a watch, a resume, a 410, a relist; b: two watch lists.
	send("informer-b", "watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true")
	send("informer-a", "limit=500")
	send("informer-a", "watch=true&resourceVersion=10")
	send("informer-b", "watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true")
	send("informer-a", "watch=true&resourceVersion=11")
	send("informer-a", "limit=500&resourceVersion=0")
	if code := p.stop(t); code != 0 {
		t.Fatalf("exit %d\n%s", code, p.stderr)
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), token) || strings.Contains(string(raw), "client-token-4242") {
		t.Fatalf("a token appears in the trace:\n%s", raw)
	}
	var decisions, events []string
	clientOfReq := map[int]string{}
	sc := bufio.NewScanner(strings.NewReader(string(raw)))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var st tracedStep
		if err := json.Unmarshal(sc.Bytes(), &st); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		client, _, _ := strings.Cut(st.Client, " from ")
		if st.Req != 0 {
			if st.Client == "" {
				t.Fatalf("step %s of request %d names no client", st.Kind, st.Req)
			}
			if prev, ok := clientOfReq[st.Req]; ok && prev != st.Client {
				t.Fatalf("request %d is told as %s's and %s's", st.Req, prev, st.Client)
			}
			clientOfReq[st.Req] = st.Client
		}
		switch {
		case st.Decision != nil:
			decisions = append(decisions, client+" "+st.Decision.Step+" rv="+st.Decision.ResourceVersion)
		case st.Event != nil && st.Event.Type == "ADDED":
			events = append(events, client+" "+st.Event.Name)
		}
	}
	wantDecisions := []string{
		"informer-b watch-list rv=",
		"informer-b relist rv=",
		"informer-a resume rv=11",
		"informer-a backoff rv=",
		"informer-a relist rv=0",
	}
	if !slices.Equal(decisions, wantDecisions) {
		t.Errorf("decisions told:\n%s\nwant:\n%s", strings.Join(decisions, "\n"), strings.Join(wantDecisions, "\n"))
	}
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"clients, one lane each", "c1: informer-b from 127.0.0.1", "c2: informer-a from 127.0.0.1"} {
		if !strings.Contains(string(html), want) {
			t.Errorf("the HTML page lacks %q", want)
		}
	}
	if strings.Contains(string(html), token) {
		t.Errorf("the token appears in the HTML page")
	}
	wantEvents := []string{"informer-b pod-of-informer-b", "informer-a pod-of-informer-a", "informer-b pod-of-informer-b"}
	if !slices.Equal(events, wantEvents) {
		t.Errorf("events told:\n%s\nwant:\n%s", strings.Join(events, "\n"), strings.Join(wantEvents, "\n"))
	}
}

// TestProxyRecord: each client's exchanges go to a fixture of its own, only
// the filtered paths, with no credential, in a form the replay loads.
func TestProxyRecord(t *testing.T) {
	clitest.Isolate(t)
	const token = "upstream-token-1234"
	server, ca := startTLSUpstream(t, httptest.NewUnstartedServer(http.HandlerFunc(scriptedUpstream)))
	dir := t.TempDir()
	page := filepath.Join(t.TempDir(), "proxy.html")
	p := startProxyCmd(t, "--server", server, "--certificate-authority", ca, "--token", token,
		"--listen", "127.0.0.1:0", "--record", dir, "--record-filter", "/api/v1/pods", "--trace-html", page)
	for _, req := range []struct{ client, path string }{
		{"informer-a", "/api/v1/pods?limit=500"},
		{"informer-a", "/api/v1/pods?watch=true&resourceVersion=10"},
		{"informer-a", "/api/v1/namespaces/default/pods?limit=1"}, // left out by the filter
		{"informer-b", "/api/v1/pods?watch=true&resourceVersion=10"},
	} {
		r, _ := http.NewRequest(http.MethodGet, p.url+req.path, nil)
		r.Header.Set("User-Agent", req.client)
		r.Header.Set("Authorization", "Bearer client-token-4242")
		resp, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatalf("GET %s: %v", req.path, err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	if code := p.stop(t); code != 0 {
		t.Fatalf("exit %d\n%s", code, p.stderr)
	}
	// Once stopped, it says where each recording, and the trace's page, went.
	for _, want := range []string{
		"podwatch: wrote the recording of informer-a from 127.0.0.1, 2 exchanges, to " + filepath.Join(dir, "127.0.0.1_informer-a", "recording.json") + "\n",
		"podwatch: wrote the recording of informer-b from 127.0.0.1, 1 exchange, to " + filepath.Join(dir, "127.0.0.1_informer-b", "recording.json") + "\n",
		"podwatch: wrote the trace's page to " + page + "\n",
	} {
		if !strings.Contains(p.stderr.String(), want) {
			t.Errorf("stderr does not say %q:\n%s", want, p.stderr)
		}
	}
	for client, want := range map[string][]string{
		"127.0.0.1_informer-a": {"/api/v1/pods limit=500", "/api/v1/pods resourceVersion=10&watch=true"},
		"127.0.0.1_informer-b": {"/api/v1/pods resourceVersion=10&watch=true"},
	} {
		path := filepath.Join(dir, client, "recording.json")
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%s: %v", client, err)
		}
		if strings.Contains(string(raw), token) || strings.Contains(string(raw), "client-token-4242") {
			t.Fatalf("a token appears in %s", path)
		}
		rec, err := fixture.Load(path)
		if err != nil {
			t.Fatalf("load %s: %v", path, err)
		}
		var got []string
		for _, ex := range rec.Exchanges {
			got = append(got, ex.Request.Path+" "+ex.Request.Query.Encode())
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s recorded %q, want %q", client, got, want)
		}
	}
}

// getThrough sends one GET of the pods through the proxy at url as client
// (its User-Agent), with header added, and reads the answer to its end.
func getThrough(t *testing.T, url, client, query string, header http.Header) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url+"/api/v1/pods?"+query, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	req.Header.Set("User-Agent", client)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s: GET ?%s: %v", client, query, err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
}
