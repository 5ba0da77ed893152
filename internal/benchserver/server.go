package benchserver

import (
	"bufio"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/podwatch/podwatch/internal/apiwire"
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
	w, _ = apiwire.Respond(w, r) // protobuf to a client that prefers it
	q := r.URL.Query()
	if r.Method != http.MethodGet || r.URL.Path != "/api/v1/pods" {
		apiwire.NotFound().Write(w)
		return
	}
	if want := "spec.nodeName=" + s.Pods.Node; q.Get("fieldSelector") != want {
		apiwire.BadRequest(fmt.Sprintf("benchserver serves fieldSelector %s only, not %s", want, q.Get("fieldSelector"))).Write(w)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	bw := bufio.NewWriterSize(w, 64<<10)
	defer bw.Flush()
	if q.Get("watch") == "true" || q.Get("watch") == "1" {
		s.watch(r, w, bw)
		return
	}
	s.list(q.Get("limit"), q.Get("continue"), bw)
}

func (s *Server) list(limitParam, cont string, bw *bufio.Writer) {
	rv := strconv.Itoa(s.Pods.N)
	from := 0
	if c, err := apiwire.DecodeContinue(cont); err == nil {
		// The copies are keyed by their index: a page resumes after the
		// index its token names.
		from, _ = strconv.Atoi(c.After)
	}
	limit, _ := strconv.Atoi(limitParam)
	to := s.Pods.N
	md := apiwire.ListMeta{ResourceVersion: rv}
	if limit > 0 && from+limit < s.Pods.N {
		to = from + limit
		md.Continue = apiwire.Continue{RV: rv, After: strconv.Itoa(to)}.Encode()
	}
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
	q := r.URL.Query()
	flusher, _ := w.(http.Flusher)
	flush := func() {
		bw.Flush()
		if flusher != nil {
			flusher.Flush()
		}
	}
	buf := make([]byte, 0, 32<<10)
	from, _ := strconv.ParseInt(q.Get("resourceVersion"), 10, 64)
	if q.Get("sendInitialEvents") == "true" {
		for i := 0; i < s.Pods.N; i++ {
			buf = s.Pods.Event(buf[:0], apiwire.Added, i, int64(i+1))
			bw.Write(buf)
		}
		bw.Write(apiwire.Event(apiwire.Bookmark, apiwire.PodBookmark(strconv.Itoa(s.Pods.N), true)))
		from = int64(s.Pods.N)
	}
	for k := 0; k < s.M; k++ {
		rv := s.Pods.EventRV(k)
		if rv <= from {
			continue
		}
		buf = s.Pods.Event(buf[:0], apiwire.Modified, s.Pods.EventPod(k), rv)
		if _, err := bw.Write(buf); err != nil {
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
