// Package text is the trace told for people: each step as a line or a few,
// with podwatch's account of the protocol (the step's explanations, and
// what the lines around them say), coloured for a terminal when asked,
// wrapped to a width when asked.
//
// It reads every step a trace.Tracer tells its sinks (it is a trace.Sink,
// New) and writes them as text: a time, a tag, a line and the lines under
// it. With Options.ExplainOnce it explains each thing in full the first
// time it meets it and briefly after, rewriting a copy of each step: the
// other sinks still get every explanation. LineOf gives one step's line
// for the HTML page, and DescribeBody tells what the first bytes of a
// binary body hold, for the -v log.
package text
