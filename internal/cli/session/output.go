package session

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

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
	// table lays out text lines; nil in the other formats. Guarded by mu:
	// its widths and its header are those of the lines written so far.
	table *textTable

	mu  sync.Mutex
	w   io.Writer
	err error
}

// newPrinter prints in format to w; text lays out updates, or with events
// watch events, as text says.
func newPrinter(w io.Writer, format string, events bool, text textOptions) *printer {
	p := &printer{w: w, format: format}
	if format == "text" {
		if events {
			p.table = newTextTable(eventHeader, string(watch.Bookmark), text)
		} else {
			p.table = newTextTable(updateHeader, podconfig.RECONCILE.String(), text)
		}
	}
	return p
}

// Err is the first write or encoding failure, if any.
func (p *printer) Err() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

func (p *printer) write(rec []byte, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.writeLocked(rec, err)
}

// rows writes rows as text lines, laid out with every line before them.
func (p *printer) rows(rows [][]string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.err == nil {
		p.writeLocked(p.table.lines(rows), nil)
	}
}

func (p *printer) writeLocked(rec []byte, err error) {
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
		p.rows(updateRows(u))
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
		p.rows([][]string{eventRow(ev)})
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

// The text output's columns. Updates and events share all but the first:
// what happened, and for updates the source it came from.
var (
	updateHeader = []string{"OP", "SOURCE", "POD", "PHASE", "NODE", "RV", "IP", "NOTE"}
	eventHeader  = []string{"EVENT", "POD", "PHASE", "NODE", "RV", "IP", "NOTE"}
)

// none is kubectl's word for an empty cell.
const none = "<none>"

// timeLayout stamps --timestamps lines: RFC 3339 in UTC to the
// millisecond, always as wide, so that the columns after it stay aligned.
const timeLayout = "2006-01-02T15:04:05.000Z07:00"

// textOptions are the text output's flags.
type textOptions struct {
	noHeaders bool
	// stamp is the clock of --timestamps (the replay's, when replaying:
	// the trace's too), nil without.
	stamp func() time.Time
}

// textTable is the text output's layout: the header still to print (nil
// once printed, or with --no-headers), the columns' widths so far, and the
// clock of --timestamps.
type textTable struct {
	header []string
	cols   columns
	stamp  func() time.Time
}

func newTextTable(header []string, longestFirst string, o textOptions) *textTable {
	t := &textTable{stamp: o.stamp}
	if o.stamp != nil {
		header = append([]string{"TIME"}, header...)
	}
	for i, h := range header {
		t.cols.grow(i, h)
	}
	first := 0
	if o.stamp != nil {
		t.cols.grow(0, time.Time{}.Format(timeLayout))
		first = 1
	}
	t.cols.grow(first, longestFirst)
	if !o.noHeaders {
		t.header = header
	}
	return t
}

// lines lays out rows after the header, if it is still to print, each
// after the time with --timestamps.
func (t *textTable) lines(rows [][]string) []byte {
	if t.stamp != nil {
		at := t.stamp().UTC().Format(timeLayout)
		for i, r := range rows {
			rows[i] = append([]string{at}, r...)
		}
	}
	if t.header != nil {
		rows = append([][]string{t.header}, rows...)
		t.header = nil
	}
	return t.cols.layout(rows)
}

// updateRows is one row per pod: op, source, namespace/name and what a
// reader looks at first.
func updateRows(u podconfig.PodUpdate) [][]string {
	if len(u.Pods) == 0 {
		return [][]string{{u.Op.String(), u.Source, "(no pods)"}}
	}
	rows := make([][]string, 0, len(u.Pods))
	for _, pod := range sortedPods(u.Pods) {
		rows = append(rows, append([]string{u.Op.String(), u.Source}, podCells(pod)...))
	}
	return rows
}

// podCells are a pod's cells from POD to NOTE.
func podCells(p *api.Pod) []string {
	or := func(v string) string {
		if v == "" {
			return none
		}
		return v
	}
	var notes []string
	if p.Metadata.DeletionTimestamp != nil {
		notes = append(notes, "deleting")
	}
	if podconfig.IsMirrorPod(p) {
		notes = append(notes, "mirror")
	}
	return []string{podconfig.FullName(p), or(p.Status.Phase), or(p.Spec.NodeName), or(p.Metadata.ResourceVersion),
		or(p.Status.PodIP), strings.Join(notes, ",")}
}

// eventRow is one watch event's row. A bookmark has only a
// resourceVersion (and maybe the end of a watch list's initial events);
// an ERROR's Status, as the line's last cell, takes the POD column's place.
func eventRow(ev watch.Event[*api.Pod]) []string {
	typ := string(ev.Type)
	switch ev.Type {
	case watch.Error:
		if se, ok := rest.AsStatusError(ev.Err); ok {
			return []string{typ, fmt.Sprintf("%d %s: %s", se.Status.Code, se.Status.Reason, base.OneLine(se.Status.Message))}
		}
		return []string{typ, base.OneLine(fmt.Sprint(ev.Err))}
	case watch.Bookmark:
		if ev.Object == nil {
			return []string{typ, "(no object)"}
		}
		note := ""
		if ev.Object.Meta().Annotations[cache.InitialEventsEndAnnotation] == "true" {
			note = "initial-events-end"
		}
		return []string{typ, "", "", "", ev.Object.Meta().ResourceVersion, "", note}
	}
	if ev.Object == nil {
		return []string{typ, "(no object)"}
	}
	return append([]string{typ}, podCells(ev.Object)...)
}
