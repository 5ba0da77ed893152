package benchserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// Placeholders put into the template's metadata, replaced per copy.
const (
	nameMark = "@@podwatch-bench-name@@"
	uidMark  = "@@podwatch-bench-uid@@"
	rvMark   = "@@podwatch-bench-rv@@"
)

// Pods makes copies of a template pod: copy i (from 0) is named pod-NNNNN with
// its own uid, bound to Node, and has resourceVersion i+1 until events move it.
type Pods struct {
	N     int
	Node  string
	parts [][]byte // the template cut at each placeholder
	order []string // which placeholder follows each part
}

// NewPods reads the template (a pod as JSON) and prepares n copies on node.
func NewPods(template []byte, n int, node string) (*Pods, error) {
	var pod map[string]any
	if err := json.Unmarshal(template, &pod); err != nil {
		return nil, fmt.Errorf("bench pod template: %w", err)
	}
	md, ok := pod["metadata"].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("bench pod template: no metadata")
	}
	md["name"], md["uid"], md["resourceVersion"] = nameMark, uidMark, rvMark
	delete(md, "generateName")
	spec, ok := pod["spec"].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("bench pod template: no spec")
	}
	spec["nodeName"] = node
	data, err := json.Marshal(pod)
	if err != nil {
		return nil, fmt.Errorf("bench pod template: %w", err)
	}
	p := &Pods{N: n, Node: node}
	for len(data) > 0 {
		at, mark := -1, ""
		for _, m := range []string{nameMark, uidMark, rvMark} {
			if i := bytes.Index(data, []byte(m)); i >= 0 && (at < 0 || i < at) {
				at, mark = i, m
			}
		}
		if at < 0 {
			p.parts = append(p.parts, data)
			break
		}
		p.parts = append(p.parts, data[:at])
		p.order = append(p.order, mark)
		data = data[at+len(mark):]
	}
	return p, nil
}

// Append appends copy i at resourceVersion rv to buf.
func (p *Pods) Append(buf []byte, i int, rv int64) []byte {
	for j, part := range p.parts {
		buf = append(buf, part...)
		if j >= len(p.order) {
			break
		}
		switch p.order[j] {
		case nameMark:
			buf = fmt.Appendf(buf, "pod-%05d", i)
		case uidMark:
			buf = fmt.Appendf(buf, "00000000-0000-4000-8000-%012d", i)
		case rvMark:
			buf = strconv.AppendInt(buf, rv, 10)
		}
	}
	return buf
}

// Event appends one watch event line: copy i at rv.
func (p *Pods) Event(buf []byte, typ string, i int, rv int64) []byte {
	buf = append(buf, `{"type":"`...)
	buf = append(buf, typ...)
	buf = append(buf, `","object":`...)
	buf = p.Append(buf, i, rv)
	return append(buf, "}\n"...)
}

// EventRV is the resourceVersion of event k (from 0) of the M after the N
// copies, and EventPod the copy it modifies.
func (p *Pods) EventRV(k int) int64 { return int64(p.N + 1 + k) }

// EventPod is the copy event k modifies: the events go round the copies.
func (p *Pods) EventPod(k int) int { return k % max(p.N, 1) }
