package cluster

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
)

// HTTPError is a non-2xx answer to one of the admin helpers (or etcd's
// gateway). Body holds up to 4 KiB of the answer, usually a Status.
type HTTPError struct {
	Method     string
	Path       string
	StatusCode int
	Body       string
}

func (e *HTTPError) Error() string {
	return fmt.Sprintf("cluster: %s %s: HTTP %d: %s", e.Method, e.Path, e.StatusCode, e.Body)
}

// IsStatus reports whether err is an *HTTPError with the given status code.
func IsStatus(err error, code int) bool {
	var he *HTTPError
	return errors.As(err, &he) && he.StatusCode == code
}

// Content types Patch accepts.
const (
	MergePatch = "application/merge-patch+json"
	JSONPatch  = "application/json-patch+json"
)

// Do sends one request to the apiserver as the admin user. path is
// relative to URL and may carry a query. body, unless nil, is sent as
// JSON ([]byte and json.RawMessage as they are); out, unless nil, receives
// the decoded 2xx answer. A non-2xx answer returns an *HTTPError. It is
// not for watches: it reads the whole body.
func (c *Cluster) Do(ctx context.Context, method, path string, body, out any) error {
	return c.do(ctx, method, path, "application/json", body, out)
}

func (c *Cluster) do(ctx context.Context, method, path, contentType string, body, out any) error {
	var r io.Reader
	if body != nil {
		var b []byte
		switch v := body.(type) {
		case []byte:
			b = v
		case json.RawMessage:
			b = v
		default:
			var err error
			if b, err = json.Marshal(body); err != nil {
				return fmt.Errorf("cluster: %s %s: encode body: %w", method, path, err)
			}
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.URL+path, r)
	if err != nil {
		return fmt.Errorf("cluster: %s %s: %w", method, path, err)
	}
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := c.admin.Do(req)
	if err != nil {
		return fmt.Errorf("cluster: %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
		return &HTTPError{Method: method, Path: path, StatusCode: resp.StatusCode, Body: string(b)}
	}
	if out == nil {
		_, err := io.Copy(io.Discard, resp.Body)
		return err
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("cluster: %s %s: decode answer: %w", method, path, err)
	}
	return nil
}

// objectMeta is the part of an answer the helpers read.
type objectMeta struct {
	Metadata struct {
		Name            string `json:"name"`
		Namespace       string `json:"namespace"`
		ResourceVersion string `json:"resourceVersion"`
	} `json:"metadata"`
}

// EnsureNamespace creates namespace ns and its ServiceAccount "default"
// (which a controller-manager would make, and pods need), accepting either
// that exists already.
func (c *Cluster) EnsureNamespace(ctx context.Context, ns string) error {
	nsObj := map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": ns}}
	if err := c.Do(ctx, http.MethodPost, "/api/v1/namespaces", nsObj, nil); err != nil && !IsStatus(err, http.StatusConflict) {
		return err
	}
	sa := map[string]any{"apiVersion": "v1", "kind": "ServiceAccount", "metadata": map[string]any{"name": "default"}}
	err := c.Do(ctx, http.MethodPost, "/api/v1/namespaces/"+url.PathEscape(ns)+"/serviceaccounts", sa, nil)
	if err != nil && !IsStatus(err, http.StatusConflict) {
		return err
	}
	return nil
}

// PodImage is the image of the pods CreatePod makes. Nothing pulls it:
// there is no kubelet.
const PodImage = "registry.invalid/pause:1"

// CreatePod creates a minimal valid pod bound to node (spec.nodeName set,
// as there is no scheduler) with one container running PodImage, and
// returns its resourceVersion. The namespace must exist (EnsureNamespace).
func (c *Cluster) CreatePod(ctx context.Context, ns, name, node string, labels map[string]string) (rv string, err error) {
	meta := map[string]any{"name": name}
	if labels != nil {
		meta["labels"] = labels
	}
	pod := map[string]any{
		"apiVersion": "v1",
		"kind":       "Pod",
		"metadata":   meta,
		"spec": map[string]any{
			"nodeName":   node,
			"containers": []any{map[string]any{"name": "main", "image": PodImage}},
		},
	}
	var out objectMeta
	if err := c.Do(ctx, http.MethodPost, podsPath(ns), pod, &out); err != nil {
		return "", err
	}
	return out.Metadata.ResourceVersion, nil
}

func podsPath(ns string) string { return "/api/v1/namespaces/" + url.PathEscape(ns) + "/pods" }

func podPath(ns, name string) string { return podsPath(ns) + "/" + url.PathEscape(name) }

// PatchPod patches pod ns/name (the status subresource when status is
// true) with patch of the given content type (MergePatch or JSONPatch) and
// returns the new resourceVersion.
func (c *Cluster) PatchPod(ctx context.Context, ns, name string, status bool, contentType string, patch any) (rv string, err error) {
	path := podPath(ns, name)
	if status {
		path += "/status"
	}
	var out objectMeta
	if err := c.do(ctx, http.MethodPatch, path, contentType, patch, &out); err != nil {
		return "", err
	}
	return out.Metadata.ResourceVersion, nil
}

// UpdatePodLabels replaces pod ns/name's labels with labels (none if nil)
// and returns the new resourceVersion.
func (c *Cluster) UpdatePodLabels(ctx context.Context, ns, name string, labels map[string]string) (rv string, err error) {
	if labels == nil {
		labels = map[string]string{}
	}
	// A JSON patch "add" replaces the member whether or not it exists,
	// where a merge patch would keep labels it does not name.
	patch := []any{map[string]any{"op": "add", "path": "/metadata/labels", "value": labels}}
	return c.PatchPod(ctx, ns, name, false, JSONPatch, patch)
}

// SetPodImage changes the image of pod ns/name's container (one of the few
// mutable spec fields) and returns the new resourceVersion.
func (c *Cluster) SetPodImage(ctx context.Context, ns, name, image string) (rv string, err error) {
	patch := []any{map[string]any{"op": "replace", "path": "/spec/containers/0/image", "value": image}}
	return c.PatchPod(ctx, ns, name, false, JSONPatch, patch)
}

// SetPodPhase writes status.phase of pod ns/name through the status
// subresource, as a kubelet would, and returns the new resourceVersion.
func (c *Cluster) SetPodPhase(ctx context.Context, ns, name, phase string) (rv string, err error) {
	patch := map[string]any{"status": map[string]any{"phase": phase}}
	return c.PatchPod(ctx, ns, name, true, MergePatch, patch)
}

// DeletePod deletes pod ns/name. With gracePeriod nil the pod's own grace
// period applies, and since no kubelet confirms the stop, a bound pod then
// only gets a deletionTimestamp (a MODIFIED event); a grace period of 0
// removes it at once (a DELETED event). It returns the resourceVersion of
// the object in the answer.
func (c *Cluster) DeletePod(ctx context.Context, ns, name string, gracePeriod *int64) (rv string, err error) {
	path := podPath(ns, name)
	if gracePeriod != nil {
		path += "?gracePeriodSeconds=" + strconv.FormatInt(*gracePeriod, 10)
	}
	var out objectMeta
	if err := c.Do(ctx, http.MethodDelete, path, nil, &out); err != nil {
		return "", err
	}
	return out.Metadata.ResourceVersion, nil
}

// ListPodsOnNode lists, as admin, the pods in all namespaces whose
// spec.nodeName is node (the view a node's watch should converge to). It
// returns their "namespace/name" keys sorted, and the list's
// resourceVersion. Pods being deleted gracefully are still listed.
func (c *Cluster) ListPodsOnNode(ctx context.Context, node string) (names []string, rv string, err error) {
	var list struct {
		Metadata struct {
			ResourceVersion string `json:"resourceVersion"`
		} `json:"metadata"`
		Items []objectMeta `json:"items"`
	}
	q := url.Values{"fieldSelector": {"spec.nodeName=" + node}}
	if err := c.Do(ctx, http.MethodGet, "/api/v1/pods?"+q.Encode(), nil, &list); err != nil {
		return nil, "", err
	}
	names = make([]string, 0, len(list.Items))
	for _, it := range list.Items {
		names = append(names, it.Metadata.Namespace+"/"+it.Metadata.Name)
	}
	slices.Sort(names)
	return names, list.Metadata.ResourceVersion, nil
}
