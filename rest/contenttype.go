package rest

import (
	"fmt"
	"mime"
	"net/http"

	"github.com/podwatch/podwatch/rest/cborwire"
	"github.com/podwatch/podwatch/rest/protowire"
)

// The content types a Client may ask for.
const (
	ContentTypeJSON     = "application/json"
	ContentTypeProtobuf = "application/vnd.kubernetes.protobuf"
	// ContentTypeCBOR is alpha in Kubernetes 1.37, served only with the
	// CBORServingAndStorage feature gate; watches answer in its sequence
	// form, ContentTypeCBORSeq.
	ContentTypeCBOR    = "application/cbor"
	ContentTypeCBORSeq = "application/cbor-seq"
)

// parseContentType checks Config.ContentType and returns it, "" made
// ContentTypeJSON.
func parseContentType(ct string) (string, error) {
	switch ct {
	case "", ContentTypeJSON:
		return ContentTypeJSON, nil
	case ContentTypeProtobuf, ContentTypeCBOR:
		return ct, nil
	}
	return "", fmt.Errorf("rest: content type %q: want %q, %q or %q", ct, ContentTypeJSON, ContentTypeProtobuf, ContentTypeCBOR)
}

// ContentType is the format the Client asks lists and watches for, and so
// the format their bodies come in: ContentTypeJSON, ContentTypeProtobuf or
// ContentTypeCBOR (whose watches come as ContentTypeCBORSeq).
func (c *Client) ContentType() string { return c.contentType }

// ContentTypeError is a 2xx answer in another format than the one asked for.
type ContentTypeError struct {
	Where string
	Asked string // the Accept header sent
	Got   string // the answer's Content-Type
}

func (e *ContentTypeError) Error() string {
	return fmt.Sprintf("%s: asked for %s, the server answered Content-Type %q", e.Where, e.Asked, e.Got)
}

// accept is the Accept header of a request. A protobuf or CBOR client asks
// for its format alone: the apiserver answers a watch with the stream form,
// application/vnd.kubernetes.protobuf;stream=watch or application/cbor-seq,
// on its own (and refuses an Accept of application/cbor-seq with 406).
func (r *Request) accept() string { return r.c.contentType }

// checkContentType fails a protobuf or CBOR request answered in another
// format. A JSON answer is not checked, as it never was: test servers and
// proxies leave JSON unlabelled or mislabelled, and its decoder finds out
// anyway.
func (r *Request) checkContentType(where string, resp *http.Response) error {
	if r.c.contentType == ContentTypeJSON {
		return nil
	}
	got := resp.Header.Get("Content-Type")
	if mt, _, err := mime.ParseMediaType(got); err == nil && (mt == r.c.contentType ||
		r.c.contentType == ContentTypeCBOR && mt == ContentTypeCBORSeq) {
		return nil
	}
	return &ContentTypeError{Where: where, Asked: r.accept(), Got: got}
}

// statusBody turns a protobuf or CBOR error answer (a Status) into the
// Status JSON the rest of the error path reads; other bodies are left as
// they are.
func statusBody(header http.Header, body []byte) []byte {
	mt, _, err := mime.ParseMediaType(header.Get("Content-Type"))
	if err == nil && mt == ContentTypeCBOR {
		var t cborwire.Transcoder
		if js, err := t.JSON(body, 0); err == nil {
			return js
		}
		return body
	}
	if err != nil || mt != ContentTypeProtobuf {
		return body
	}
	u, err := protowire.ParseEnvelope(body, 0)
	if err != nil || u.Kind != "Status" {
		return body
	}
	var t protowire.Transcoder
	js, err := t.Object(u)
	if err != nil {
		return body
	}
	return js
}
