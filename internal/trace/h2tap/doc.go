// Package h2tap is the trace's HTTP/2 tap: it reads the frames that cross
// each HTTP/2 connection of a traced client and tells them.
//
// It reads the bytes of each connection above TLS, as golang.org/x/net's
// HTTP/2 client writes and reads them (the trace.Instrument wires Tap in as
// the client's resthook.Hooks.WrapConn), and the httptrace hooks of each
// request, which tie the stream a request opens to its number. It writes a
// conn step for each connection and a frame step for each frame either
// way, told as they come (trace.Tracer.Tell), a frame of a request's
// stream numbered with it. Frames are described with x/net's Framer;
// header blocks are never decoded, since they carry the Authorization
// header. It changes nothing the client does: traced or not, it runs the
// same transport, pool and pings.
package h2tap
