package source

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/podwatch/podwatch/internal/podconfig"
	"github.com/podwatch/podwatch/rest/api"
)

// HTTPOptions tune an HTTP source; the zero value works.
type HTTPOptions struct {
	// Period is how often the URL is fetched, as the kubelet's
	// httpCheckFrequency. Default 20s.
	Period time.Duration
	// Header is sent with every request.
	Header http.Header
	// Client makes the requests. Default http.DefaultClient.
	Client *http.Client
	// RequestTimeout bounds one fetch, body included. Default 10s.
	RequestTimeout time.Duration
	// Report is told of every failed fetch and every manifest that cannot be
	// used. It runs on Run's goroutine and must not block.
	Report func(source string, err error)
}

// HTTP is the "http" source: a manifest URL holding a Pod or a PodList, JSON or
// YAML, fetched every Period. Its pods get the static pod defaults, the UID
// hashed over the URL (not the node: the kubelet's rule) and no extra
// toleration (the kubelet gives that to file pods alone).
type HTTP struct {
	url, node string
	opts      HTTPOptions

	// last is the last body that got an answer; an identical body sends nothing.
	last    []byte
	fetched bool
}

// NewHTTP returns a source for the manifests at url, for node nodeName.
func NewHTTP(url, nodeName string, opts HTTPOptions) *HTTP {
	if opts.Period <= 0 {
		opts.Period = 20 * time.Second
	}
	if opts.Client == nil {
		opts.Client = http.DefaultClient
	}
	if opts.RequestTimeout <= 0 {
		opts.RequestTimeout = 10 * time.Second
	}
	if opts.Report == nil {
		opts.Report = func(string, error) {}
	}
	return &HTTP{url: url, node: nodeName, opts: opts}
}

// Run fetches the URL now and every Period until ctx ends, sending a SET on out
// whenever the body differs from the last one: its valid pods, or none for an
// empty body (reported as ErrEmptyBody). A failed fetch (an *HTTPStatusError for
// anything but 200, a network error) is reported and retried at the next Period;
// the pods sent last stay in force meanwhile. It blocks until ctx ends.
func (h *HTTP) Run(ctx context.Context, out chan<- podconfig.PodUpdate) {
	tick := time.NewTicker(h.opts.Period)
	defer tick.Stop()
	for {
		if pods, ok := h.poll(ctx); ok {
			select {
			case out <- podconfig.PodUpdate{Op: podconfig.SET, Pods: pods, Source: podconfig.SourceHTTP}:
			case <-ctx.Done():
				return
			}
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			return
		}
	}
}

// poll fetches once and returns the pods to send, or false when there is
// nothing to send.
func (h *HTTP) poll(ctx context.Context) ([]*api.Pod, bool) {
	body, err := h.fetch(ctx)
	if err != nil {
		if ctx.Err() == nil {
			h.opts.Report(podconfig.SourceHTTP, err)
		}
		return nil, false
	}
	if h.fetched && bytes.Equal(body, h.last) {
		return nil, false
	}
	h.last, h.fetched = body, true
	if len(body) == 0 {
		h.opts.Report(podconfig.SourceHTTP, &ManifestError{Source: podconfig.SourceHTTP, Location: h.url, Err: ErrEmptyBody})
		return []*api.Pod{}, true
	}
	return h.decode(body)
}

func (h *HTTP) fetch(ctx context.Context) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, h.opts.RequestTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, h.url, nil)
	if err != nil {
		return nil, fmt.Errorf("http source: %w", err)
	}
	for k, vs := range h.opts.Header {
		req.Header[k] = append([]string(nil), vs...)
	}
	resp, err := h.opts.Client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("http source: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		// Drain a little so the connection can be reused.
		io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
		return nil, &HTTPStatusError{URL: h.url, StatusCode: resp.StatusCode, Status: resp.Status}
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxManifestSize+1))
	if err != nil {
		return nil, fmt.Errorf("http source: GET %s: read body: %w", h.url, err)
	}
	if len(body) > MaxManifestSize {
		return nil, &ManifestError{Source: podconfig.SourceHTTP, Location: h.url, Err: ErrTooLarge}
	}
	return body, nil
}

// decode turns a body into pods. A body that is not a Pod or a PodList, or a Pod
// that is not valid, sends nothing; a list's invalid items are reported and the
// rest sent.
func (h *HTTP) decode(body []byte) ([]*api.Pod, bool) {
	report := func(err error) {
		h.opts.Report(podconfig.SourceHTTP, &ManifestError{Source: podconfig.SourceHTTP, Location: h.url, Err: err})
	}
	pods, list, err := decodeManifest(body, true)
	if err != nil {
		report(err)
		return nil, false
	}
	s := static{node: h.node, location: h.url}
	out := make([]*api.Pod, 0, len(pods))
	for i, p := range pods {
		if err := s.apply(p, list); err != nil {
			if list {
				err = fmt.Errorf("item %d: %w", i, err)
			}
			report(err)
			continue
		}
		out = append(out, p)
	}
	if !list && len(out) == 0 {
		return nil, false
	}
	return out, true
}
