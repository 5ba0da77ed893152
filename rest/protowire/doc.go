// Package protowire reads the Kubernetes protobuf wire format
// (wire.ContentTypeProtobuf), the kubelet's own, and turns what it
// reads into the JSON the apiserver would have sent for the same object, so
// that the JSON decoders (api.DecodePod, meta.ParseStatus, the list and watch
// decoders' event logic) serve both content types unchanged.
//
// What the v1.37 apiserver sends, checked against it:
//
//   - A list or a single object is an envelope: the magic bytes "k8s\x00",
//     then a runtime.Unknown message: typeMeta (1: apiVersion, 2: kind), raw
//     (2: the object's own message), contentEncoding (3) and contentType (4),
//     both empty. A list's raw is a PodList: metadata (1), items (2, repeated).
//   - A watch body (Content-Type wire.ContentTypeProtobufWatch, the media type
//     with stream=watch) is a sequence of frames, each a 4-byte big-endian length and that many
//     bytes of a WatchEvent message (no magic): type (1) and object (2), a
//     RawExtension whose raw (1) is an envelope as above.
//   - An ERROR event's object is a Status in the envelope, and a protobuf
//     client's error answers (4xx, 5xx) are a Status envelope too.
//
// Objects whose Go type models part of a message are decoded without
// transcoding: a Model names the fields the type reads itself, and a Reader
// hands those to the type and keeps the others in their wire form, in a
// jsonx.Extra through the Model's jsonx.Encoding. Kept fields are checked when
// read, by a walk of the schema that writes nothing and follows the rules of
// the transcoding that writes them as JSON when the object is written, which
// therefore cannot fail (walk.go; where the walk cannot tell, the run is
// transcoded, which also names a fault and its offset); a large kept run
// equal to one kept before is shared with it (jsonx.Share), and so needs no
// second check.
//
// The schema that drives the transcoding (schema_gen.go) is generated from the
// Go types of k8s.io/api by podwatch's schema generator, a module of its own
// (make protogen): podwatch itself imports no Kubernetes code.
//
// Strings are bytes on the wire, which protobuf does not check to be UTF-8.
// Read into a Go string (Reader.String), each byte that is not part of valid
// UTF-8 becomes U+FFFD; written as JSON (the Transcoder, and kept fields when
// their object is written), it is \ufffd, by jsonx.AppendQuote, as the
// apiserver's encoding/json writes it. Either way it is what the JSON path
// gives for the same object, so a pod does not depend on its format.
//
// The transcoder writes members in the order of the Go structs' fields, which
// is the order of the apiserver's JSON, and follows encoding/json's rules for
// omitempty and omitzero, so a pod read here and a pod read as JSON decode to
// the same api.Pod. Two things protobuf cannot carry are lost as any protobuf
// client loses them: an empty list or map the server held as [] or {} arrives
// as absent (null, or omitted), and fields newer than the schema are skipped.
package protowire
