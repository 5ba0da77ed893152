// Package page is the trace as one self-contained HTML page: a timeline of
// the run that pans and zooms, each mark's details on hover and on click,
// and the text trace folded by request.
//
// It reads every step a trace.Tracer tells its sinks (it is a trace.Sink,
// New), keeping them until Close, and what the page should record of the
// run that made it (Run: the command line, the fixture, the faults, the
// date). On Close it writes the page: a model of lanes and marks placed on
// a time axis that spreads steps that came together and compresses pauses,
// drawn by the page's own script (page.js, page.css), and the steps as
// package text tells them. The page loads nothing: its script and style
// are inline, and its Content-Security-Policy forbids anything else.
package page
