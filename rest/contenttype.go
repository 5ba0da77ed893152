package rest

import (
	"fmt"
	"mime"
	"net/http"

	"github.com/podwatch/podwatch/rest/protowire"
)

// The content types a Client may ask for.
const (
	ContentTypeJSON     = "application/json"
	ContentTypeProtobuf = "application/vnd.kubernetes.protobuf"
)

// parseContentType checks Config.ContentType and says whether it is protobuf.
func parseContentType(ct string) (bool, error) {
	switch ct {
	case "", ContentTypeJSON:
		return false, nil
	case ContentTypeProtobuf:
		return true, nil
	}
	return false, fmt.Errorf("rest: content type %q: want %q or %q", ct, ContentTypeJSON, ContentTypeProtobuf)
}

// ContentType is the format the Client asks lists and watches for, and so
// the format their bodies come in: ContentTypeJSON or ContentTypeProtobuf.
func (c *Client) ContentType() string {
	if c.protobuf {
		return ContentTypeProtobuf
	}
	return ContentTypeJSON
}

// ContentTypeError is a 2xx answer in another format than the one asked for.
type ContentTypeError struct {
	Where string
	Asked string // the Accept header sent
	Got   string // the answer's Content-Type
}

func (e *ContentTypeError) Error() string {
	return fmt.Sprintf("%s: asked for %s, the server answered Content-Type %q", e.Where, e.Asked, e.Got)
}

// accept is the Accept header of a request. A protobuf client asks for
// protobuf alone: the apiserver answers a watch with its stream form,
// application/vnd.kubernetes.protobuf;stream=watch, on its own.
func (r *Request) accept() string {
	if r.c.protobuf {
		return ContentTypeProtobuf
	}
	return ContentTypeJSON
}

// checkContentType fails a protobuf request answered in another format. A
// JSON answer is not checked, as it never was: test servers and proxies
// leave JSON unlabelled or mislabelled, and its decoder finds out anyway.
func (r *Request) checkContentType(where string, resp *http.Response) error {
	if !r.c.protobuf {
		return nil
	}
	got := resp.Header.Get("Content-Type")
	if mt, _, err := mime.ParseMediaType(got); err == nil && mt == ContentTypeProtobuf {
		return nil
	}
	return &ContentTypeError{Where: where, Asked: r.accept(), Got: got}
}

// protobufStatusBody turns a protobuf error answer (a Status envelope) into
// the Status JSON the rest of the error path reads; other bodies are left as
// they are.
func protobufStatusBody(header http.Header, body []byte) []byte {
	mt, _, err := mime.ParseMediaType(header.Get("Content-Type"))
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
