package apiwire

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/podwatch/podwatch/internal/table"
	"github.com/podwatch/podwatch/rest/wire"
)

// kubectlAccept is what kubectl 1.37's get sends.
const kubectlAccept = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"

func TestNegotiateTable(t *testing.T) {
	for accept, want := range map[string]Media{
		kubectlAccept: {wire.JSON, table.V1},
		"application/json;as=Table;v=v1beta1;g=meta.k8s.io":                                             {wire.JSON, table.V1beta1},
		"application/json;as=Table;g=meta.k8s.io;v=v1;charset=utf-8":                                    {wire.JSON, table.V1},
		"*/*;as=Table;v=v1;g=meta.k8s.io":                                                               {wire.JSON, table.V1},
		"application/*;as=Table;v=v1;g=meta.k8s.io,application/json":                                    {wire.JSON, ""},
		"application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io,application/json":              {wire.JSON, ""},
		"application/json;as=Table;v=v1;g=meta.k8s.io;q=0.5,application/json;q=0.9":                     {wire.JSON, ""},
		"application/json;as=table;v=v1;g=meta.k8s.io,application/vnd.kubernetes.protobuf":              {wire.Protobuf, ""},
		"application/json;as=Table;v=v2;g=meta.k8s.io,application/json":                                 {wire.JSON, ""},
		"application/json;v=v1;g=meta.k8s.io,application/json":                                          {wire.JSON, ""},
		"application/vnd.kubernetes.protobuf,application/json;as=Table;v=v1;g=meta.k8s.io":              {wire.Protobuf, ""},
		"application/json;as=Table;v=v1;g=meta.k8s.io;q=0.1,application/vnd.kubernetes.protobuf;q=0.05": {wire.JSON, table.V1},
	} {
		got, ok := NegotiateMedia(accept)
		if !ok || got != want {
			t.Errorf("NegotiateMedia(%q) = %+v, %t; want %+v", accept, got, ok, want)
		}
	}
}

// atNoon is the clock of the Tables below.
func atNoon() time.Time { return time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC) }

// serveTable is serve for a Table client, with the Tables' clock at noon.
func serveTable(t *testing.T, target string, handler func(w http.ResponseWriter)) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, target, nil)
	req.Header.Set("Accept", kubectlAccept)
	rec := httptest.NewRecorder()
	w, f := Respond(rec, req)
	if f != wire.JSON {
		t.Fatalf("a Table client is answered in %v, want JSON", f)
	}
	handler(w.WithClock(atNoon))
	return rec
}

const tablePod = `{"kind":"Pod","apiVersion":"v1","metadata":{"name":"a","namespace":"ns","resourceVersion":"5","creationTimestamp":"2026-12-04T11:59:00Z"},"spec":{"nodeName":"n","containers":[{"name":"c"}]},"status":{"phase":"Running","containerStatuses":[{"name":"c","ready":true,"state":{"running":{}}}]}}`

// TestRespondTableList: a list answered to kubectl is the Table package
// table makes of it, written in pieces or whole alike.
func TestRespondTableList(t *testing.T) {
	item := strings.Replace(tablePod, `"kind":"Pod","apiVersion":"v1",`, "", 1)
	page := ListPage("PodList", ListMeta{ResourceVersion: "7"}, [][]byte{[]byte(item)})
	want, err := table.List(nil, page, table.Options{Version: table.V1, Include: table.IncludeObject, Now: atNoon()})
	if err != nil {
		t.Fatal(err)
	}
	rec := serveTable(t, "/api/v1/namespaces/ns/pods?includeObject=Object", func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", "1") // the server's; the Table's own length differs
		for _, part := range [][]byte{page[:10], page[10:50], page[50:], []byte("\n")} {
			w.Write(part)
		}
	})
	if got := rec.Body.String(); got != string(want)+"\n" {
		t.Errorf("body\n%s\nwant\n%s", got, want)
	}
	if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != wire.ContentTypeJSON || rec.Header().Get("Content-Length") != "" {
		t.Errorf("%d %v, want 200, application/json, no Content-Length", rec.Code, rec.Header())
	}
	if !strings.Contains(rec.Body.String(), `"cells":["a","1/1","Running","0","60s","\u003cnone\u003e","n",`) {
		t.Errorf("the row's cells are not the pod's: %s", rec.Body.String())
	}
}

// TestRespondTableWatch: each event's object becomes a Table of one row,
// the column definitions in the first only; an ERROR event's Status stays.
func TestRespondTableWatch(t *testing.T) {
	modified := strings.Replace(tablePod, `"resourceVersion":"5"`, `"resourceVersion":"6"`, 1)
	gone := ErrorEvent(Gone("too old resource version: 1 (5)"))
	body := bytes.Join([][]byte{Event(Added, []byte(tablePod)), Event(Modified, []byte(modified)), Event(Bookmark, PodBookmark("7", false)), gone}, nil)
	rec := serveTable(t, "/api/v1/pods?watch=true&resourceVersion=4", func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		for i := 0; i < len(body); i += 41 {
			w.Write(body[i:min(i+41, len(body))])
		}
	})
	lines := strings.Split(strings.TrimSuffix(rec.Body.String(), "\n"), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d lines, want 4 events:\n%s", len(lines), rec.Body.String())
	}
	o := table.Options{Version: table.V1, Include: table.IncludeMetadata, Now: atNoon()}
	for i, c := range []struct {
		typ     string
		obj     string
		headers bool
	}{{Added, tablePod, true}, {Modified, modified, false}, {Bookmark, string(PodBookmark("7", false)), false}} {
		tbl, err := table.Pod(nil, []byte(c.obj), c.headers, o)
		if err != nil {
			t.Fatal(err)
		}
		if want := string(Event(c.typ, tbl)); lines[i]+"\n" != want {
			t.Errorf("event %d:\n%s\nwant\n%s", i, lines[i], want)
		}
	}
	if lines[3]+"\n" != string(gone) {
		t.Errorf("ERROR event %s, want it as written: %s", lines[3], gone)
	}
}

// TestRespondTableLeaves: what is not a 200 of pods reaches a Table client
// as written: a Status, discovery, a Table a recording already holds.
func TestRespondTableLeaves(t *testing.T) {
	rec := serveTable(t, "/api/v1/pods", func(w http.ResponseWriter) { Gone("gone").Write(w) })
	if rec.Code != http.StatusGone || rec.Body.String() != string(Gone("gone").JSON())+"\n" {
		t.Errorf("410: %d %s", rec.Code, rec.Body.String())
	}
	req := httptest.NewRequest(http.MethodGet, "/api/v1", nil)
	plain := httptest.NewRecorder()
	ServeDiscovery(plain, req)
	rec = serveTable(t, "/api/v1", func(w http.ResponseWriter) { ServeDiscovery(w, req) })
	if rec.Body.String() != plain.Body.String() {
		t.Errorf("discovery for a Table client:\n%s\nwant\n%s", rec.Body.String(), plain.Body.String())
	}
	recorded := `{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{},"columnDefinitions":null,"rows":[]}` + "\n"
	rec = serveTable(t, "/api/v1/pods", func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(recorded))
	})
	if rec.Body.String() != recorded {
		t.Errorf("a Table already: %s", rec.Body.String())
	}
}

// TestRespondTableBadInclude: an includeObject the apiserver refuses gets
// its 400 in place of the answer, and the server's writes fail.
func TestRespondTableBadInclude(t *testing.T) {
	for _, target := range []string{"/api/v1/pods?includeObject=none", "/api/v1/pods?watch=1&includeObject=Bogus"} {
		var writeErr error
		rec := serveTable(t, target, func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "application/json")
			_, writeErr = w.Write(Event(Added, []byte(tablePod)))
		})
		if !errors.Is(writeErr, ErrRefused) {
			t.Errorf("%s: server's write error %v, want ErrRefused", target, writeErr)
		}
		var st struct {
			Code    int    `json:"code"`
			Reason  string `json:"reason"`
			Message string `json:"message"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &st); err != nil {
			t.Fatalf("%s: %v: %s", target, err, rec.Body.String())
		}
		v := target[strings.LastIndexByte(target, '=')+1:]
		want := `Unable to convert to Table as requested: includeObject: Invalid value: "` + v + `": must be 'Metadata', 'Object', 'None', or empty`
		if rec.Code != http.StatusBadRequest || st.Code != 400 || st.Reason != "BadRequest" || st.Message != want {
			t.Errorf("%s: %d %+v, want the apiserver's 400: %s", target, rec.Code, st, want)
		}
	}
	// Only a Table request reads includeObject.
	rec := serve(t, "/api/v1/pods?includeObject=Bogus", "application/json", func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(tablePod))
	})
	if rec.Code != http.StatusOK || rec.Body.String() != tablePod {
		t.Errorf("plain JSON client: %d %s", rec.Code, rec.Body.String())
	}
}

// TestRespondTableGarbage: a body that is not JSON goes on raw after the
// events before it, as for a protobuf client.
func TestRespondTableGarbage(t *testing.T) {
	garbage := "\x00\xff}{ not json\n"
	rec := serveTable(t, "/api/v1/pods?watch=true", func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(Event(Added, []byte(tablePod)))
		w.Write([]byte(garbage))
	})
	first, rest, _ := strings.Cut(rec.Body.String(), "\n")
	var ev struct {
		Object struct{ Kind string } `json:"object"`
	}
	if err := json.Unmarshal([]byte(first), &ev); err != nil || ev.Object.Kind != "Table" || rest != garbage {
		t.Errorf("body %q: want a Table event, then the garbage raw", rec.Body.String())
	}
	if d := cmp.Diff(garbage, rest); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}
