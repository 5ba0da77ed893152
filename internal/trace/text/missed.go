package text

import (
	"fmt"
	"strings"

	"github.com/podwatch/podwatch/internal/trace"
)

// missedText is the text trace's line for a missed change: the tag says
// missed, the line how, which pod and the resourceVersions between which it
// happened.
func missedText(m *trace.Missed) (string, string, string, []string) {
	to := m.To
	if to == "" {
		to = m.State
	}
	pod := m.Name
	if m.Namespace != "" {
		pod = m.Namespace + "/" + m.Name
	}
	text := fmt.Sprintf("%s %s rv %s..%s: %s", m.How, pod, m.From, to, m.Explain)
	return "missed", bold + red, text, nil
}

// missedTotals is the summary line's count of missed changes, by how.
func missedTotals(p *trace.Stop) string {
	if p.Missed == 0 {
		return ""
	}
	var parts []string
	for _, how := range []string{trace.MissedDeleted, trace.MissedSkipped, trace.MissedUnseen} {
		if n := p.MissedHow[how]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, how))
		}
	}
	s := fmt.Sprintf("; missed %d", p.Missed)
	if len(parts) > 0 {
		s += " (" + strings.Join(parts, ", ") + ")"
	}
	return s
}

// withClient puts, under a step's text line, the proxied client it is
// about, as a request's line has it.
func withClient(client string) func(tag, col, text string, more []string) (string, string, string, []string) {
	return func(tag, col, text string, more []string) (string, string, string, []string) {
		if client != "" {
			// The client's name says "from" its host already.
			more = append([]string{"client: " + client}, more...)
		}
		return tag, col, text, more
	}
}
