// Package fault injects the failures a watch client meets in the wild into an
// HTTP server's answers: a connection cut after some events or bytes, an event
// cut in half, 410 as an answer or as an ERROR event, 429 with Retry-After, 500,
// a stall, a slow drip, garbage, an oversized frame, an HTML page where JSON was
// expected.
//
// A Fault is either a whole answer (Answer writes it in place of the real one) or
// a stream fault (NewWriter wraps the real body and strikes at an event boundary).
// Both the fixture replay server and the model server of the convergence tests
// use it, so a fault means the same thing everywhere. A Plan decides which
// request gets which fault.
package fault
