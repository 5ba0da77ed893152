package benchserver

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"time"

	"github.com/podwatch/podwatch/internal/apiwire"
)

// fill appends copy i's value at resourceVersion rv for one place of the
// template.
type fill func(buf []byte, i int, rv int64) []byte

// hole is one value copies differ in, which may appear in several places of
// the template (the pod IP does).
type hole struct {
	text fill
	// time marks a timestamp: copy i's is the Unix time base+i, which
	// protobuf holds as a number, not as the JSON's text.
	time bool
	base int64
}

// Pods makes copies of a template pod: copy i (from 0) is named pod-NNNNN with
// its own uid, bound to Node, and has resourceVersion i+1 until events move it.
type Pods struct {
	N     int
	Node  string
	parts [][]byte // the template cut at each place a copy fills in
	at    []int    // at[j] is the hole that follows parts[j]
	holes []hole

	proto protoOnce // the copies in protobuf, made on first use
}

// PodsOptions tune the copies.
type PodsOptions struct {
	// Vary makes the copies differ also where replicas of one template
	// really do: every timestamp, the service account token volume's name,
	// container IDs and the pod IP. Without it a copy differs from the
	// template only in name, uid and resourceVersion, so everything else is
	// byte for byte the same in every copy.
	Vary bool
}

// markFmt marks a place to fill in the template; the number indexes holes.
const markFmt = "@@podwatch-bench-%d@@"

var markRE = regexp.MustCompile(`@@podwatch-bench-(\d+)@@`)

// NewPods reads the template (a pod as JSON) and prepares n copies on node.
func NewPods(template []byte, n int, node string, opts PodsOptions) (*Pods, error) {
	var pod map[string]any
	if err := json.Unmarshal(template, &pod); err != nil {
		return nil, fmt.Errorf("bench pod template: %w", err)
	}
	md, ok := pod["metadata"].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("bench pod template: no metadata")
	}
	spec, ok := pod["spec"].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("bench pod template: no spec")
	}
	var holes []hole
	mark := func(h hole) string {
		holes = append(holes, h)
		return fmt.Sprintf(markFmt, len(holes)-1)
	}
	md["name"] = mark(hole{text: func(buf []byte, i int, _ int64) []byte { return fmt.Appendf(buf, "pod-%05d", i) }})
	md["uid"] = mark(hole{text: func(buf []byte, i int, _ int64) []byte {
		return fmt.Appendf(buf, "00000000-0000-4000-8000-%012d", i)
	}})
	md["resourceVersion"] = mark(hole{text: func(buf []byte, _ int, rv int64) []byte { return strconv.AppendInt(buf, rv, 10) }})
	delete(md, "generateName")
	spec["nodeName"] = node
	data, err := json.Marshal(pod)
	if err != nil {
		return nil, fmt.Errorf("bench pod template: %w", err)
	}
	if opts.Vary {
		status, _ := pod["status"].(map[string]any)
		podIP, _ := status["podIP"].(string)
		data = vary(data, podIP, mark)
	}
	return cut(data, n, node, holes), nil
}

// The places replicas of one template differ, as they appear in the JSON.
var (
	timeRE      = regexp.MustCompile(`"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)"`)
	tokenVolRE  = regexp.MustCompile(`kube-api-access-[a-z0-9]{5}`)
	containerRE = regexp.MustCompile(`containerd://([0-9a-f]+)`)
)

// vary puts a mark wherever replicas differ: copy i's times are the
// template's plus i seconds, its token volume, container IDs and pod IP its
// own. The pod IP is replaced wherever it appears, so also in the kubelet's
// managedFields entry, which names it in a key of its field set.
func vary(data []byte, podIP string, mark func(hole) string) []byte {
	data = timeRE.ReplaceAllFunc(data, func(m []byte) []byte {
		t, err := time.Parse(time.RFC3339, string(m[1:len(m)-1]))
		if err != nil {
			return m
		}
		return []byte(`"` + mark(hole{time: true, base: t.Unix(), text: func(buf []byte, i int, _ int64) []byte {
			return t.Add(time.Duration(i)*time.Second).AppendFormat(buf, time.RFC3339)
		}}) + `"`)
	})
	// One name per copy, the same in the volume and in every mount of it.
	data = tokenVolRE.ReplaceAll(data, []byte(mark(hole{text: func(buf []byte, i int, _ int64) []byte {
		return fmt.Appendf(buf, "kube-api-access-%05s", strconv.FormatInt(int64(i), 36))
	}})))
	data = containerRE.ReplaceAllFunc(data, func(m []byte) []byte {
		width := len(m) - len("containerd://")
		if width < 12 {
			return m
		}
		prefix := string(m[len("containerd://"):][:width-12])
		return []byte(mark(hole{text: func(buf []byte, i int, _ int64) []byte {
			return fmt.Appendf(buf, "containerd://%s%012x", prefix, i)
		}}))
	})
	if podIP == "" {
		return data
	}
	ipRE := regexp.MustCompile(`\b` + regexp.QuoteMeta(podIP) + `\b`)
	return ipRE.ReplaceAllLiteral(data, []byte(mark(hole{text: func(buf []byte, i int, _ int64) []byte {
		return fmt.Appendf(buf, "10.%d.%d.%d", 64+i>>16, i>>8&255, i&255)
	}})))
}

// cut splits the marked template into the parts between its marks.
func cut(data []byte, n int, node string, holes []hole) *Pods {
	p := &Pods{N: n, Node: node, holes: holes}
	last := 0
	for _, m := range markRE.FindAllSubmatchIndex(data, -1) {
		k, _ := strconv.Atoi(string(data[m[2]:m[3]]))
		p.parts = append(p.parts, data[last:m[0]])
		p.at = append(p.at, k)
		last = m[1]
	}
	p.parts = append(p.parts, data[last:])
	return p
}

// Append appends copy i at resourceVersion rv to buf.
func (p *Pods) Append(buf []byte, i int, rv int64) []byte {
	for j, part := range p.parts {
		buf = append(buf, part...)
		if j < len(p.at) {
			buf = p.holes[p.at[j]].text(buf, i, rv)
		}
	}
	return buf
}

// appendWith appends the template with value(buf, k) in each place of hole k.
func (p *Pods) appendWith(buf []byte, value func(buf []byte, k int) []byte) []byte {
	for j, part := range p.parts {
		buf = append(buf, part...)
		if j < len(p.at) {
			buf = value(buf, p.at[j])
		}
	}
	return buf
}

// Event appends one watch event line: copy i at rv.
func (p *Pods) Event(buf []byte, typ string, i int, rv int64) []byte {
	return append(p.Append(apiwire.AppendEventHead(buf, typ), i, rv), apiwire.EventTail...)
}

// EventRV is the resourceVersion of event k (from 0) of the M after the N
// copies, and EventPod the copy it modifies.
func (p *Pods) EventRV(k int) int64 { return int64(p.N + 1 + k) }

// EventPod is the copy event k modifies: the events go round the copies.
func (p *Pods) EventPod(k int) int { return k % max(p.N, 1) }
