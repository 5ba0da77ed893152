package probe

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/podwatch/podwatch/internal/apiwire"
	"github.com/podwatch/podwatch/rest"
)

// fakeAPI is an apiserver of one namespace's pods, enough for a probe:
// list and watch (every namespace, any selector), create, get, merge patch
// and delete. Forbidden verbs answer 403; with muted set, patches send no
// event, as if the watch had fallen behind for good.
type fakeAPI struct {
	t *testing.T

	mu       sync.Mutex
	rv       int
	pods     map[string]map[string]any // name -> pod object
	watchers map[chan []byte]bool
	history  []change        // every change, for watches from a resourceVersion
	forbid   map[string]bool // "create", "patch", "delete", "list"
	muted    bool
	created  int
	deleted  []string
}

type change struct {
	rv    int
	event []byte
}

func newFakeAPI(t *testing.T) (*fakeAPI, *rest.Client) {
	f := &fakeAPI{t: t, rv: 100, pods: map[string]map[string]any{}, watchers: map[chan []byte]bool{}, forbid: map[string]bool{}}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	c, err := rest.NewClient(rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	return f, c
}

func (f *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	name, one := strings.CutPrefix(r.URL.Path, "/api/v1/namespaces/default/pods/")
	verb := map[string]string{http.MethodGet: "list", http.MethodPost: "create", http.MethodPatch: "patch", http.MethodDelete: "delete"}[r.Method]
	if r.Method == http.MethodGet && one {
		verb = "get"
	}
	f.mu.Lock()
	forbidden := f.forbid[verb]
	f.mu.Unlock()
	if forbidden {
		apiwire.Status{Code: http.StatusForbidden, Reason: "Forbidden", Message: "pods is forbidden: cannot " + verb}.Write(w)
		return
	}
	switch {
	case verb == "list" && r.URL.Query().Get("watch") == "true":
		f.watch(w, r)
	case verb == "list":
		f.list(w)
	case verb == "create":
		f.create(w, r)
	case verb == "get":
		f.answer(w, name, f.pod(name))
	case verb == "patch":
		f.patch(w, r, name)
	case verb == "delete":
		f.delete(w, name)
	default:
		apiwire.NotFound().Write(w)
	}
}

func (f *fakeAPI) pod(name string) map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.pods[name]
}

func (f *fakeAPI) answer(w http.ResponseWriter, name string, pod map[string]any) {
	if pod == nil {
		apiwire.Status{Code: http.StatusNotFound, Reason: "NotFound", Message: "pods " + strconv.Quote(name) + " not found"}.Write(w)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(mustJSON(f.t, pod))
}

func (f *fakeAPI) list(w http.ResponseWriter) {
	f.mu.Lock()
	var items [][]byte
	for _, p := range f.pods {
		items = append(items, mustJSON(f.t, p))
	}
	rv := strconv.Itoa(f.rv)
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.Write(apiwire.ListPage("PodList", apiwire.ListMeta{ResourceVersion: rv}, items))
}

func (f *fakeAPI) watch(w http.ResponseWriter, r *http.Request) {
	// As the apiserver's watch cache does, a watch from a version first
	// gets every change after it.
	from, _ := strconv.Atoi(r.URL.Query().Get("resourceVersion"))
	ch := make(chan []byte, 100)
	f.mu.Lock()
	for _, c := range f.history {
		if c.rv > from {
			ch <- c.event
		}
	}
	f.watchers[ch] = true
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		delete(f.watchers, ch)
		f.mu.Unlock()
	}()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	w.(http.Flusher).Flush()
	for {
		select {
		case <-r.Context().Done():
			return
		case ev := <-ch:
			w.Write(ev)
			w.(http.Flusher).Flush()
		}
	}
}

// changed moves the version on and tells every watch; f.mu is held.
func (f *fakeAPI) changed(typ string, pod map[string]any) {
	f.rv++
	pod["metadata"].(map[string]any)["resourceVersion"] = strconv.Itoa(f.rv)
	if f.muted && typ == apiwire.Modified {
		return
	}
	ev := apiwire.Event(typ, mustJSON(f.t, pod))
	f.history = append(f.history, change{f.rv, ev})
	for ch := range f.watchers {
		ch <- ev
	}
}

func (f *fakeAPI) create(w http.ResponseWriter, r *http.Request) {
	var pod map[string]any
	if err := json.NewDecoder(r.Body).Decode(&pod); err != nil {
		apiwire.BadRequest(err.Error()).Write(w)
		return
	}
	md := pod["metadata"].(map[string]any)
	name := md["name"].(string)
	md["namespace"] = "default"
	f.mu.Lock()
	if f.pods[name] != nil {
		f.mu.Unlock()
		apiwire.Status{Code: http.StatusConflict, Reason: "AlreadyExists", Message: "pods " + strconv.Quote(name) + " already exists"}.Write(w)
		return
	}
	f.pods[name] = pod
	f.created++
	f.changed(apiwire.Added, pod)
	f.mu.Unlock()
	w.WriteHeader(http.StatusCreated)
	w.Write(mustJSON(f.t, pod))
}

func (f *fakeAPI) patch(w http.ResponseWriter, r *http.Request, name string) {
	if ct := r.Header.Get("Content-Type"); ct != rest.ContentTypeMergePatch {
		apiwire.Status{Code: http.StatusUnsupportedMediaType, Reason: "UnsupportedMediaType", Message: ct}.Write(w)
		return
	}
	var patch struct {
		Metadata struct {
			Annotations map[string]string `json:"annotations"`
		} `json:"metadata"`
	}
	b, _ := io.ReadAll(r.Body)
	if err := json.Unmarshal(b, &patch); err != nil {
		apiwire.BadRequest(err.Error()).Write(w)
		return
	}
	f.mu.Lock()
	pod := f.pods[name]
	if pod != nil {
		md := pod["metadata"].(map[string]any)
		ann, _ := md["annotations"].(map[string]any)
		if ann == nil {
			ann = map[string]any{}
			md["annotations"] = ann
		}
		for k, v := range patch.Metadata.Annotations {
			ann[k] = v
		}
		f.changed(apiwire.Modified, pod)
	}
	f.mu.Unlock()
	f.answer(w, name, pod)
}

func (f *fakeAPI) delete(w http.ResponseWriter, name string) {
	f.mu.Lock()
	pod := f.pods[name]
	if pod != nil {
		delete(f.pods, name)
		f.deleted = append(f.deleted, name)
		f.changed(apiwire.Deleted, pod)
	}
	f.mu.Unlock()
	f.answer(w, name, pod)
}

// left is the pods still there.
func (f *fakeAPI) left() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for n := range f.pods {
		out = append(out, n)
	}
	return out
}

func mustJSON(t *testing.T, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
