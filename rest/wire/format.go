package wire

import (
	"mime"
	"strings"
)

// Format is one of the wire formats the apiserver speaks. The zero value is
// JSON, the apiserver's default.
type Format uint8

const (
	JSON Format = iota
	Protobuf
	CBOR
)

// Formats lists every Format, in the order help texts name them.
var Formats = [...]Format{JSON, Protobuf, CBOR}

// The media types of the three formats. This file is the only one of
// podwatch's that spells them out (make lint holds it to that): everything
// else names them through these constants or a Format.
const (
	ContentTypeJSON     = "application/json"
	ContentTypeProtobuf = "application/vnd.kubernetes.protobuf"
	// ContentTypeProtobufWatch is a protobuf watch body's Content-Type: the
	// media type with the parameter stream=watch.
	ContentTypeProtobufWatch = ContentTypeProtobuf + ";stream=watch"
	ContentTypeCBOR          = "application/cbor"
	// ContentTypeCBORSeq is a CBOR watch body's Content-Type, a sequence of
	// items; the apiserver answers it but refuses it in an Accept header.
	ContentTypeCBORSeq = "application/cbor-seq"
)

// String is the format's name, as --content-type spells it: json, protobuf
// or cbor.
func (f Format) String() string {
	switch f {
	case Protobuf:
		return "protobuf"
	case CBOR:
		return "cbor"
	}
	return "json"
}

// ParseName finds the Format a name (String's) names.
func ParseName(name string) (Format, bool) {
	for _, f := range Formats {
		if f.String() == name {
			return f, true
		}
	}
	return JSON, false
}

// ContentType is the media type a client asks for to be answered in f, and
// the Content-Type of a single object or a list in f.
func (f Format) ContentType() string {
	switch f {
	case Protobuf:
		return ContentTypeProtobuf
	case CBOR:
		return ContentTypeCBOR
	}
	return ContentTypeJSON
}

// WatchContentType is the Content-Type of a watch body in f. The apiserver
// marks a protobuf watch as a stream and answers a CBOR one as a sequence; a
// JSON watch is plain application/json.
func (f Format) WatchContentType() string {
	switch f {
	case Protobuf:
		return ContentTypeProtobufWatch
	case CBOR:
		return ContentTypeCBORSeq
	}
	return ContentTypeJSON
}

// ParseContentType finds the Format of a Content-Type header, or of one media
// range of an Accept header: any of a format's media types, with any
// parameters (charset, stream=watch). ok is false for another media type or
// a malformed one.
func ParseContentType(contentType string) (f Format, ok bool) {
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return JSON, false
	}
	switch strings.ToLower(mt) {
	case ContentTypeJSON:
		return JSON, true
	case ContentTypeProtobuf:
		return Protobuf, true
	case ContentTypeCBOR, ContentTypeCBORSeq:
		return CBOR, true
	}
	return JSON, false
}

// IsWatchStream reports whether a Content-Type marks a watch body, as only a
// protobuf watch's does (stream=watch) and a CBOR watch's (a sequence).
func IsWatchStream(contentType string) bool {
	mt, params, err := mime.ParseMediaType(contentType)
	return err == nil && (params["stream"] == "watch" || strings.ToLower(mt) == ContentTypeCBORSeq)
}
