package rundiff

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/podwatch/podwatch/cache"
	"github.com/podwatch/podwatch/internal/apiwire"
	"github.com/podwatch/podwatch/internal/fixture"
	"github.com/podwatch/podwatch/rest"
	"github.com/podwatch/podwatch/rest/api"
	"github.com/podwatch/podwatch/rest/wire"
	"github.com/podwatch/podwatch/watch"
)

// FromRecording reads rec as a run: its requests, the events of its watch
// bodies and the states its client's store was pushed (see the package
// doc). Bodies are read as JSON (Recording.JSON), so a protobuf or CBOR
// recording reads as the JSON one of the same run. A body that ends inside
// an event (a cut) gives the events before the cut, as its client had them.
func FromRecording(path string, rec *fixture.Recording) (*Run, error) {
	jrec, err := rec.JSON()
	if err != nil {
		var fe *fixture.FormatError
		if errors.As(err, &fe) && fe.Path == "" {
			fe.Path = path
		}
		return nil, err
	}
	p := player{run: &Run{Path: path, Form: "recording"}}
	p.store = cache.NewUndeltaStore(p.pushed, cache.MetaNamespaceKey[*api.Pod])
	for i := range jrec.Exchanges {
		if err := p.exchange(i, &jrec.Exchanges[i]); err != nil {
			return nil, &fixture.FormatError{Path: path, Exchange: i, Chunk: -1, Offset: -1, Err: err}
		}
	}
	return p.run, nil
}

// player applies a recording's bodies to an undelta store, as the recorded
// client did, and notes every item on the way. The store's only error is a
// *cache.StaleError, a change older than what it pushed, which it refuses,
// pushing nothing: the recorded client's store refused it too, so the
// pushes compared already tell it.
type player struct {
	run   *Run
	store *cache.UndeltaStore[*api.Pod]
	where string
	pages []*api.Pod // a paged list's items so far
}

func (p *player) note(it Item) {
	it.Where = p.where
	p.run.Items = append(p.run.Items, it)
}

func (p *player) pushed(pods []*api.Pod, rv string) {
	it := Item{Kind: KindPush, RV: rv, Pods: make([]PodAt, len(pods))}
	for i, pod := range pods {
		it.Pods[i] = PodAt{Pod: pod.Metadata.Namespace + "/" + pod.Metadata.Name, RV: pod.Metadata.ResourceVersion}
	}
	p.note(it)
}

func (p *player) exchange(i int, ex *fixture.Exchange) error {
	// Counted from 1, as a trace numbers its requests: a replay's request
	// #3 is the recording's exchange 3.
	p.where = fmt.Sprintf("exchange %d", i+1)
	q := ex.Request.Query
	rv := "-"
	if v, ok := q["resourceVersion"]; ok && len(v) > 0 {
		rv = v[0]
	}
	p.note(Item{Kind: KindRequest, Shape: fixture.Shape(ex.Request.Method, ex.Request.Path, q), RV: rv, Status: ex.Response.Status})
	req, st := apiwire.ParsePods(ex.Request.Path, q)
	if st != nil || ex.Request.Method != http.MethodGet || ex.Response.Status != http.StatusOK {
		return nil // not a pods list or watch the store would take
	}
	var body bytes.Buffer
	for _, c := range ex.Response.Chunks {
		body.Write(c.Data)
	}
	if req.Watch {
		return p.watch(i, body.Bytes(), req.SendInitialEvents)
	}
	return p.list(body.Bytes())
}

// list replaces the store with a list's items, once its last page came.
func (p *player) list(body []byte) error {
	l, err := rest.DecodeList(bytes.NewReader(body), wire.JSON, api.Codec, rest.ListLimits{})
	if err != nil {
		return err
	}
	p.pages = append(p.pages, l.Items...)
	if l.Metadata.Continue != "" {
		return nil
	}
	items := p.pages
	p.pages = nil
	_ = p.store.Replace(items, l.Metadata.ResourceVersion) // a stale change is refused: see player
	return nil
}

// watch applies a watch body's events. A watch list's initial events are
// gathered and applied as one replace at the bookmark that ends them.
func (p *player) watch(i int, body []byte, watchList bool) error {
	d := watch.NewDecoder(bytes.NewReader(body), api.Codec, watch.DecoderOptions{})
	var initial []*api.Pod
	for n := 0; ; n++ {
		ev, err := d.Decode()
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil // the end, or a cut the recorded client met too
		}
		if err != nil {
			return err
		}
		p.where = fmt.Sprintf("exchange %d event %d", i+1, n+1)
		p.event(ev)
		obj := ev.Object
		switch {
		case ev.Type == watch.Error:
			return nil // the server ends the stream after it
		case watchList && ev.Type == watch.Bookmark && obj.Metadata.Annotations[apiwire.InitialEventsEnd] == "true":
			_ = p.store.Replace(initial, obj.Metadata.ResourceVersion) // a stale change is refused: see player
			watchList = false
		case watchList && ev.Type == watch.Added:
			initial = append(initial, obj)
		case ev.Type == watch.Added:
			_ = p.store.Add(obj) // a stale change is refused: see player
		case ev.Type == watch.Modified:
			_ = p.store.Update(obj) // a stale change is refused: see player
		case ev.Type == watch.Deleted:
			_ = p.store.Delete(obj) // a stale change is refused: see player
		}
	}
}

func (p *player) event(ev watch.Event[*api.Pod]) {
	it := Item{Kind: KindEvent, Type: string(ev.Type)}
	if ev.Type == watch.Error {
		var se *rest.StatusError
		if errors.As(ev.Err, &se) {
			it.Code = int(se.Status.Code)
		}
		p.note(it)
		return
	}
	m := ev.Object.Metadata
	it.RV = m.ResourceVersion
	if ev.Type != watch.Bookmark {
		it.Pod = m.Namespace + "/" + m.Name
	}
	p.note(it)
}
