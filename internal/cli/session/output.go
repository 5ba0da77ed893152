package session

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"sigs.k8s.io/yaml"

	"github.com/podwatch/podwatch/cache"
	"github.com/podwatch/podwatch/internal/cli/base"
	"github.com/podwatch/podwatch/internal/podconfig"
	"github.com/podwatch/podwatch/rest"
	"github.com/podwatch/podwatch/rest/api"
	"github.com/podwatch/podwatch/rest/jsonx"
	"github.com/podwatch/podwatch/watch"
)

// printer writes pod updates or watch events to stdout in one format, each
// record with a single Write so that a reader of a pipe gets whole records.
// It is safe for concurrent use; after the first failed write it writes
// nothing more and Err returns that failure.
type printer struct {
	format string // text, json or yaml
	// diffs adds what changed to json lines (--diff); nil without.
	diffs *printDiffs

	mu  sync.Mutex
	w   io.Writer
	err error
}

func newPrinter(w io.Writer, format string) *printer { return &printer{w: w, format: format} }

// Err is the first write or encoding failure, if any.
func (p *printer) Err() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

func (p *printer) write(rec []byte, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.err != nil {
		return
	}
	if err == nil {
		_, err = p.w.Write(rec)
	}
	if err != nil {
		p.err = fmt.Errorf("write output: %w", err)
	}
}

// update prints one pod update.
func (p *printer) update(u podconfig.PodUpdate) {
	switch p.format {
	case "json":
		rec, err := updateJSON(u)
		if err == nil && p.diffs != nil {
			rec, err = p.diffs.update(rec, u)
		}
		p.write(append(rec, '\n'), err)
	case "yaml":
		p.write(updateYAML(u))
	default:
		p.write(updateText(u), nil)
	}
}

// event prints one watch event as the server sent it. Events without raw
// bytes (a failed stream's last event) are not the server's and are skipped.
func (p *printer) event(ev watch.Event[*api.Pod]) {
	if ev.Raw == nil {
		return
	}
	switch p.format {
	case "json":
		rec, err := slices.Clip(ev.Raw), error(nil)
		if p.diffs != nil {
			rec, err = p.diffs.event(ev)
		}
		p.write(append(rec, '\n'), err)
	case "yaml":
		p.write(yamlDoc(ev.Raw))
	default:
		p.write(eventText(ev), nil)
	}
}

func yamlDoc(j []byte) ([]byte, error) {
	y, err := yaml.JSONToYAML(j)
	if err != nil {
		return nil, fmt.Errorf("encode yaml: %w", err)
	}
	return append([]byte("---\n"), y...), nil
}

// sortedPods orders pods by namespace, then name: the schema's promise.
func sortedPods(pods []*api.Pod) []*api.Pod {
	out := slices.Clone(pods)
	slices.SortStableFunc(out, func(a, b *api.Pod) int {
		if c := strings.Compare(a.Metadata.Namespace, b.Metadata.Namespace); c != 0 {
			return c
		}
		return strings.Compare(a.Metadata.Name, b.Metadata.Name)
	})
	return out
}

// updateJSON encodes u in the stable schema, on one line.
func updateJSON(u podconfig.PodUpdate) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`{"op":`)
	writeJSONString(&b, u.Op.String())
	b.WriteString(`,"source":`)
	writeJSONString(&b, u.Source)
	b.WriteString(`,"pods":[`)
	for i, pod := range sortedPods(u.Pods) {
		if i > 0 {
			b.WriteByte(',')
		}
		data, err := pod.MarshalJSON()
		if err != nil {
			return nil, fmt.Errorf("encode pod %s: %w", podconfig.FullName(pod), err)
		}
		b.Write(data)
	}
	b.WriteString("]}")
	return b.Bytes(), nil
}

// updateYAML is u as one YAML document, op and source first so that they
// are not lost below the pods.
func updateYAML(u podconfig.PodUpdate) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("---\nop: " + u.Op.String() + "\nsource: ")
	if plainWord(u.Source) {
		b.WriteString(u.Source)
	} else {
		writeJSONString(&b, u.Source) // a JSON string is a YAML string
	}
	if len(u.Pods) == 0 {
		b.WriteString("\npods: []\n")
		return b.Bytes(), nil
	}
	b.WriteString("\npods:\n")
	for _, pod := range sortedPods(u.Pods) {
		data, err := pod.MarshalJSON()
		if err != nil {
			return nil, fmt.Errorf("encode pod %s: %w", podconfig.FullName(pod), err)
		}
		y, err := yaml.JSONToYAML(data)
		if err != nil {
			return nil, fmt.Errorf("encode pod %s as yaml: %w", podconfig.FullName(pod), err)
		}
		for i, line := range bytes.SplitAfter(bytes.TrimSuffix(y, []byte("\n")), []byte("\n")) {
			if i == 0 {
				b.WriteString("- ")
			} else {
				b.WriteString("  ")
			}
			b.Write(line)
		}
		b.WriteByte('\n')
	}
	return b.Bytes(), nil
}

// plainWord reports a string YAML reads back as itself without quotes.
func plainWord(s string) bool {
	if s == "" || s == "true" || s == "false" || s == "null" || s == "yes" || s == "no" || s == "on" || s == "off" {
		return false
	}
	for _, r := range s {
		if r < 'a' || r > 'z' {
			return false
		}
	}
	return true
}

func writeJSONString(b *bytes.Buffer, s string) { b.Write(jsonx.AppendQuote(b.AvailableBuffer(), s)) }

// updateText is one line per pod: op, source, namespace/name and what a
// reader looks at first.
func updateText(u podconfig.PodUpdate) []byte {
	var b bytes.Buffer
	head := fmt.Sprintf("%-9s %-4s ", u.Op, u.Source)
	if len(u.Pods) == 0 {
		b.WriteString(head + "(no pods)\n")
	}
	for _, pod := range sortedPods(u.Pods) {
		b.WriteString(head + podconfig.FullName(pod) + podDetails(pod) + "\n")
	}
	return b.Bytes()
}

func podDetails(p *api.Pod) string {
	var b strings.Builder
	add := func(k, v string) {
		if v != "" {
			b.WriteString(" " + k + "=" + v)
		}
	}
	add("phase", p.Status.Phase)
	add("node", p.Spec.NodeName)
	add("ip", p.Status.PodIP)
	add("rv", p.Metadata.ResourceVersion)
	if p.Metadata.DeletionTimestamp != nil {
		b.WriteString(" deleting")
	}
	if podconfig.IsMirrorPod(p) {
		b.WriteString(" mirror")
	}
	return b.String()
}

func eventText(ev watch.Event[*api.Pod]) []byte {
	head := fmt.Sprintf("%-9s ", ev.Type)
	switch ev.Type {
	case watch.Error:
		if se, ok := rest.AsStatusError(ev.Err); ok {
			return fmt.Appendf(nil, "%s%d %s: %s\n", head, se.Status.Code, se.Status.Reason, base.OneLine(se.Status.Message))
		}
		return fmt.Appendf(nil, "%s%v\n", head, ev.Err)
	case watch.Bookmark:
		if ev.Object == nil {
			return []byte(head + "(no object)\n")
		}
		line := head + "rv=" + ev.Object.Meta().ResourceVersion
		if ev.Object.Meta().Annotations[cache.InitialEventsEndAnnotation] == "true" {
			line += " initial-events-end"
		}
		return []byte(line + "\n")
	}
	if ev.Object == nil {
		return []byte(head + "(no object)\n")
	}
	return []byte(head + podconfig.FullName(ev.Object) + podDetails(ev.Object) + "\n")
}
