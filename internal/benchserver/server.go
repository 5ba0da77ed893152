package benchserver

import (
	"bufio"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/podwatch/podwatch/internal/apiwire"
	"github.com/podwatch/podwatch/rest/wire"
)

// Server serves the copies and M events. It keeps no state between requests:
// every list answers the copies at resourceVersion N, every watch from any
// resourceVersion at or after N sends the events after it.
type Server struct {
	Pods *Pods
	M    int
}

// LastRV is the resourceVersion of the last event.
func (s *Server) LastRV() int64 { return int64(s.Pods.N + s.M) }

// ServeHTTP implements http.Handler for GET /api/v1/pods.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if st := s.refuse(r); st == nil {
		if f, ok := apiwire.Negotiate(r.Header.Get("Accept")); ok && f == wire.Protobuf {
			s.serveProtobuf(w, r) // the kubelet's form, assembled fast
			return
		}
	}
	w, _ = apiwire.Respond(w, r) // CBOR to a client that prefers it
	if st := s.refuse(r); st != nil {
		st.Write(w)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	bw := bufio.NewWriterSize(w, 64<<10)
	defer bw.Flush()
	if isWatch(q) {
		s.watch(r, w, bw)
		return
	}
	s.list(q.Get("limit"), q.Get("continue"), bw)
}

// refuse is the Status answering a request the server does not serve.
func (s *Server) refuse(r *http.Request) *apiwire.Status {
	if r.Method != http.MethodGet || r.URL.Path != "/api/v1/pods" {
		st := apiwire.NotFound()
		return &st
	}
	if want, got := "spec.nodeName="+s.Pods.Node, r.URL.Query().Get("fieldSelector"); got != want {
		st := apiwire.BadRequest(fmt.Sprintf("benchserver serves fieldSelector %s only, not %s", want, got))
		return &st
	}
	return nil
}

func isWatch(q url.Values) bool { return q.Get("watch") == "true" || q.Get("watch") == "1" }

// page is the copies a list request gets: from and to, and the list's
// metadata.
func (s *Server) page(limitParam, cont string) (from, to int, md apiwire.ListMeta) {
	rv := strconv.Itoa(s.Pods.N)
	if c, err := apiwire.DecodeContinue(cont); err == nil {
		// The copies are keyed by their index: a page resumes after the
		// index its token names.
		from, _ = strconv.Atoi(c.After)
	}
	limit, _ := strconv.Atoi(limitParam)
	to = s.Pods.N
	md = apiwire.ListMeta{ResourceVersion: rv}
	if limit > 0 && from+limit < s.Pods.N {
		to = from + limit
		md.Continue = apiwire.Continue{RV: rv, After: strconv.Itoa(to)}.Encode()
	}
	return from, to, md
}

func (s *Server) list(limitParam, cont string, bw *bufio.Writer) {
	from, to, md := s.page(limitParam, cont)
	bw.Write(apiwire.ListHead("PodList", md))
	buf := make([]byte, 0, 32<<10)
	for i := from; i < to; i++ {
		buf = buf[:0]
		if i > from {
			buf = append(buf, ',')
		}
		buf = s.Pods.Append(buf, i, int64(i+1))
		bw.Write(buf)
	}
	bw.WriteString(apiwire.ListTail + "\n")
}

func (s *Server) watch(r *http.Request, w http.ResponseWriter, bw *bufio.Writer) {
	buf := make([]byte, 0, 32<<10)
	s.events(r, w, bw, eventWriter{
		pod: func(typ string, i int, rv int64) ([]byte, error) {
			buf = s.Pods.Event(buf[:0], typ, i, rv)
			return buf, nil
		},
		bookmark: func(rv string) ([]byte, error) {
			return apiwire.Event(apiwire.Bookmark, apiwire.PodBookmark(rv, true)), nil
		},
	})
}

// eventWriter makes the events of a watch in one form.
type eventWriter struct {
	pod      func(typ string, i int, rv int64) ([]byte, error)
	bookmark func(rv string) ([]byte, error) // the initial-events-end bookmark
}

// events writes a watch's events, in the form ew makes, then holds the
// watch open.
func (s *Server) events(r *http.Request, w http.ResponseWriter, bw *bufio.Writer, ew eventWriter) {
	q := r.URL.Query()
	flusher, _ := w.(http.Flusher)
	flush := func() {
		bw.Flush()
		if flusher != nil {
			flusher.Flush()
		}
	}
	write := func(b []byte, err error) bool {
		if err == nil {
			_, err = bw.Write(b)
		}
		return err == nil
	}
	from, _ := strconv.ParseInt(q.Get("resourceVersion"), 10, 64)
	if q.Get("sendInitialEvents") == "true" {
		for i := 0; i < s.Pods.N; i++ {
			if !write(ew.pod(apiwire.Added, i, int64(i+1))) {
				return
			}
		}
		if !write(ew.bookmark(strconv.Itoa(s.Pods.N))) {
			return
		}
		from = int64(s.Pods.N)
	}
	for k := 0; k < s.M; k++ {
		rv := s.Pods.EventRV(k)
		if rv <= from {
			continue
		}
		if !write(ew.pod(apiwire.Modified, s.Pods.EventPod(k), rv)) {
			return
		}
	}
	flush()
	// Held open, as a real watch with nothing more to say.
	hold := 10 * time.Minute
	if secs, err := strconv.Atoi(q.Get("timeoutSeconds")); err == nil && secs > 0 {
		hold = time.Duration(secs) * time.Second
	}
	t := time.NewTimer(hold)
	defer t.Stop()
	select {
	case <-t.C:
	case <-r.Context().Done():
	}
}
