// Package wire is the one seam between podwatch and the apiserver's three
// wire formats: JSON, the protobuf a kubelet asks for, and CBOR (alpha in
// Kubernetes 1.37). A Format is found once, from a Content-Type (or, for a
// server, an Accept header), and gives each reader of a body what it needs:
// the media types to ask for and to expect, the framer that cuts a watch body
// into events, the reader of each event's type and object, and the
// transcoding of an object to the JSON the apiserver would have sent for it.
//
// The codecs themselves (rest/jsonx, rest/protowire, rest/cborwire) know one
// format each; this package is where the three meet, so that the list and
// watch decoders, and podwatch's trace, fixtures and servers, keep no flags
// of their own for which format a body is in.
package wire
