// Package cborwire reads and writes the apiserver's CBOR (application/cbor,
// watches as application/cbor-seq), the third wire format beside JSON and
// protobuf: self-describing like JSON, compact like protobuf.
//
// What the real v1.37.2 apiserver does, checked with the alpha
// CBORServingAndStorage feature gate on:
//   - A client asks with Accept: application/cbor. Gets and lists answer
//     Content-Type application/cbor; watches answer application/cbor-seq.
//     Asking for application/cbor-seq itself is refused (406), while
//     application/cbor;stream=watch is accepted for a watch.
//   - Every object is one data item under the self-described CBOR tag 55799
//     (the bytes d9 d9 f7). A watch body is a sequence of such items, one per
//     event, with no framing between them: each item's end follows from its
//     headers. An event item is a map of "type" and "object", the object
//     tagged 55799 again.
//   - Strings, map keys included, are byte strings (major type 2), not text
//     strings. Map keys come in no fixed order: it changes from item to item.
//   - Time and MicroTime are RFC 3339 strings, Quantity a string,
//     IntOrString an integer or a string, exactly as in JSON; a zero Time is
//     null where JSON writes null; nothing else is tagged. A list is one
//     item, a PodList with apiVersion, kind, metadata and items.
//   - Error answers to a CBOR client (a 404, say) are a CBOR Status item.
//     BOOKMARK and ERROR events come as CBOR events too.
//   - With the gate off, Accept: application/cbor alone gets 406
//     NotAcceptable, a JSON Status listing the types served; an Accept that
//     also names application/json gets JSON.
//
// Transcoder turns an item into the JSON the apiserver would have sent, so
// that the rest of podwatch reads CBOR as it reads JSON, strings included:
// written by jsonx.AppendQuote, invalid UTF-8 as \ufffd, and so read as
// U+FFFD. EncodeJSON and EncodeEvent write JSON back as CBOR items, for
// podwatch's servers. The
// framer that splits a watch body into items is internal/stream's
// Reader.NextCBOR, on the one buffered reader every format shares.
package cborwire
