package rest

import (
	"fmt"
	"net/http"

	"github.com/podwatch/podwatch/rest/wire"
)

// parseContentType checks Config.ContentType: "" is JSON; otherwise one of
// the media types a client may ask for (wire's ContentType of a Format).
func parseContentType(ct string) (wire.Format, error) {
	if ct == "" {
		return wire.JSON, nil
	}
	for _, f := range wire.Formats {
		if ct == f.ContentType() {
			return f, nil
		}
	}
	return wire.JSON, fmt.Errorf("rest: content type %q: want %q, %q or %q", ct, wire.ContentTypeJSON, wire.ContentTypeProtobuf, wire.ContentTypeCBOR)
}

// Format is the wire format the Client asks lists and watches for, and so
// the format their bodies come in (Config.ContentType).
func (c *Client) Format() wire.Format { return c.format }

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
// wire.ContentTypeProtobufWatch or wire.ContentTypeCBORSeq, on its own (and
// refuses an Accept of the CBOR sequence's type with 406).
func (r *Request) accept() string { return r.c.format.ContentType() }

// checkContentType fails a protobuf or CBOR request answered in another
// format. A JSON answer is not checked, as it never was: test servers and
// proxies leave JSON unlabelled or mislabelled, and its decoder finds out
// anyway.
func (r *Request) checkContentType(where string, resp *http.Response) error {
	if r.c.format == wire.JSON {
		return nil
	}
	got := resp.Header.Get("Content-Type")
	if f, ok := wire.ParseContentType(got); ok && f == r.c.format {
		return nil
	}
	return &ContentTypeError{Where: where, Asked: r.accept(), Got: got}
}

// statusBody turns a protobuf or CBOR error answer (a Status) into the
// Status JSON the rest of the error path reads; other bodies, and those
// that do not read as their format, are left as they are.
func statusBody(header http.Header, body []byte) []byte {
	f, ok := wire.ParseContentType(header.Get("Content-Type"))
	if !ok || f == wire.JSON {
		return body
	}
	js, err := f.ObjectJSON(body)
	if err != nil {
		return body
	}
	return js
}
