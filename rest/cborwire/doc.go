// Package cborwire reads the apiserver's CBOR (wire.ContentTypeCBOR,
// watches as wire.ContentTypeCBORSeq), the third wire format beside JSON and
// protobuf: self-describing like JSON, compact like protobuf.
//
// What the real v1.37.2 apiserver does, checked with the alpha
// CBORServingAndStorage feature gate on:
//   - A client asks with Accept: wire.ContentTypeCBOR. Gets and lists answer
//     in that Content-Type; watches answer wire.ContentTypeCBORSeq. Asking
//     for the sequence's type itself is refused (406), while the CBOR type
//     with stream=watch is accepted for a watch.
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
//   - With the gate off, an Accept of the CBOR type alone gets 406
//     NotAcceptable, a JSON Status listing the types served; an Accept that
//     also names application/json gets JSON.
//
// Transcoder turns an item into the JSON the apiserver would have sent, so
// that the rest of podwatch reads CBOR as it reads JSON, strings included:
// written by jsonx.AppendQuote, invalid UTF-8 as \ufffd, and so read as
// U+FFFD. Framer finds where each item of a watch body ends, from the
// items' own headers, on the one buffered reader every format shares.
// Writing CBOR is for podwatch's own servers, and is not here.
package cborwire
