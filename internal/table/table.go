package table

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Include is what each row carries of its pod, as a request's includeObject
// parameter asks.
type Include string

const (
	IncludeMetadata Include = "Metadata" // the pod's metadata, as a PartialObjectMetadata: the default
	IncludeObject   Include = "Object"   // the whole pod
	IncludeNone     Include = "None"     // nothing: the row's object is null
)

// ParseInclude reads an includeObject parameter ("" when absent) as the
// apiserver does: exactly one of its three values, or none. The error is
// the apiserver's wording, for the 400 a server answers with.
func ParseInclude(v string) (Include, error) {
	switch Include(v) {
	case "", IncludeMetadata:
		return IncludeMetadata, nil
	case IncludeObject, IncludeNone:
		return Include(v), nil
	}
	return "", fmt.Errorf("includeObject: Invalid value: %q: must be 'Metadata', 'Object', 'None', or empty", v)
}

// The versions of meta.k8s.io a Table is asked in; kubectl asks for v1,
// with v1beta1 after it for servers that predate v1.
const (
	V1      = "v1"
	V1beta1 = "v1beta1"
)

// Options say what Table to make.
type Options struct {
	Version string // V1 (when empty) or V1beta1: the Table's and a PartialObjectMetadata's apiVersion
	Include Include
	// Now is the moment AGE and RESTARTS' "ago" are told from: the
	// apiserver's, when the answer is made.
	Now time.Time
}

// ErrNotPods says a document is JSON but not what the Table is made of (a
// pod, or a list of pods): a Status, or a Table already. A server passes it
// on as it is, as the apiserver passes a Status on.
var ErrNotPods = errors.New("table: not a pod or a list of pods")

// podList is what a list's Table takes from the list.
type podList struct {
	Kind     string            `json:"kind"`
	Metadata listMeta          `json:"metadata"`
	Items    []json.RawMessage `json:"items"`
}

// listMeta is the Table's metadata: a list's resourceVersion, continue
// token and remaining count, or a single pod's resourceVersion.
type listMeta struct {
	ResourceVersion    string `json:"resourceVersion,omitempty"`
	Continue           string `json:"continue,omitempty"`
	RemainingItemCount *int64 `json:"remainingItemCount,omitempty"`
}

// List appends to dst the Table of list, a PodList's JSON: a row for each
// item in order, and the column definitions. It returns ErrNotPods for a
// document of another kind, and an error wrapping the JSON's for a list
// that is not JSON (dst is then returned as it was).
func List(dst, list []byte, o Options) ([]byte, error) {
	var l podList
	if err := lenient(json.Unmarshal(list, &l)); err != nil {
		return dst, fmt.Errorf("%w: %w", errNotJSON, err)
	}
	if l.Kind != "PodList" {
		return dst, fmt.Errorf("%w: kind %q", ErrNotPods, l.Kind)
	}
	pods := make([]*pod, len(l.Items))
	for i, it := range l.Items {
		p, err := decodePod(it)
		if err != nil {
			return dst, fmt.Errorf("item %d: %w", i, err)
		}
		pods[i] = p
	}
	out := appendHead(dst, o, l.Metadata, true)
	for i, p := range pods {
		if i > 0 {
			out = append(out, ',')
		}
		out = appendRow(out, p, l.Items[i], o)
	}
	return append(out, "]}"...), nil
}

// Pod appends to dst the Table of one pod, as a watch event carries it: one
// row, the pod's resourceVersion as the Table's, and the column definitions
// only when headers is set (the apiserver sends them with a watch's first
// event, and null after). ErrNotPods and malformed JSON are as for List.
func Pod(dst, obj []byte, headers bool, o Options) ([]byte, error) {
	p, err := decodePod(obj)
	if err != nil {
		return dst, err
	}
	if p.Kind != "Pod" {
		return dst, fmt.Errorf("%w: kind %q", ErrNotPods, p.Kind)
	}
	out := appendHead(dst, o, listMeta{ResourceVersion: p.meta.ResourceVersion}, headers)
	out = appendRow(out, p, obj, o)
	return append(out, "]}"...), nil
}

// appendHead writes the Table up to its first row.
func appendHead(dst []byte, o Options, md listMeta, headers bool) []byte {
	dst = append(dst, `{"kind":"Table","apiVersion":"meta.k8s.io/`...)
	dst = append(dst, version(o)...)
	dst = append(dst, `","metadata":`...)
	dst = appendJSON(dst, md)
	dst = append(dst, `,"columnDefinitions":`...)
	if headers {
		dst = append(dst, columnsJSON...)
	} else {
		dst = append(dst, "null"...)
	}
	return append(dst, `,"rows":[`...)
}

// appendRow writes p's row; raw is p's JSON, for the row's object.
func appendRow(dst []byte, p *pod, raw []byte, o Options) []byte {
	cells, conds := p.cells(o.Now)
	dst = append(dst, `{"cells":`...)
	dst = appendJSON(dst, cells)
	if conds != nil {
		dst = append(dst, `,"conditions":`...)
		dst = appendJSON(dst, conds)
	}
	dst = append(dst, `,"object":`...)
	switch {
	case o.Include == IncludeObject:
		dst = appendPod(dst, raw)
	case o.Include == IncludeNone && !p.initialEventsEnd():
		dst = append(dst, "null"...)
	default:
		// The apiserver keeps the metadata of a watch list's closing
		// bookmark whatever was asked: a client finds the annotation
		// that ends the initial events there.
		dst = append(dst, `{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/`...)
		dst = append(dst, version(o)...)
		dst = append(dst, `","metadata":`...)
		if md := trimSpace(p.Metadata); len(md) > 0 && md[0] == '{' {
			dst = append(dst, md...)
		} else {
			dst = append(dst, "{}"...) // no metadata, or none that is an object
		}
		dst = append(dst, '}')
	}
	return append(dst, '}')
}

// appendPod writes the whole pod, as the apiserver writes one: with its
// kind and apiVersion first, which a list's items leave out.
func appendPod(dst, raw []byte) []byte {
	var tm struct {
		Kind, APIVersion *string
	}
	json.Unmarshal(raw, &tm) // raw decoded as a pod already: only a type error is possible, and reads as unset
	if tm.Kind != nil || tm.APIVersion != nil {
		return append(dst, raw...)
	}
	body := trimObject(raw)
	dst = append(dst, `{"kind":"Pod","apiVersion":"v1"`...)
	if len(body) > 0 {
		dst = append(dst, ',')
		dst = append(dst, body...)
	}
	return append(dst, '}')
}

// trimObject is what lies between a JSON object's braces, spaces trimmed.
func trimObject(raw []byte) []byte {
	b := trimSpace(raw)
	if len(b) < 2 || b[0] != '{' {
		return nil
	}
	return trimSpace(b[1 : len(b)-1])
}

func trimSpace(b []byte) []byte {
	isSpace := func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
	for len(b) > 0 && isSpace(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

func version(o Options) string {
	if o.Version == "" {
		return V1
	}
	return o.Version
}

// appendJSON appends v encoded as encoding/json encodes it, which escapes
// <, > and & as the apiserver does ("\u003cnone\u003e").
func appendJSON(dst []byte, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic("table: encode: " + err.Error()) // cannot happen: strings, ints and slices of them only
	}
	return append(dst, b...)
}
