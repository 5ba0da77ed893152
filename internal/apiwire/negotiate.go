package apiwire

import (
	"slices"
	"strconv"
	"strings"
)

// Format is a wire form podwatch's servers write: the apiserver's JSON, the
// protobuf a kubelet asks for, or CBOR (alpha in Kubernetes 1.37, served by
// the real apiserver only with its CBORServingAndStorage gate on).
type Format uint8

const (
	JSON Format = iota
	Protobuf
	CBOR
)

// Media types, as the apiserver names them in Accept and Content-Type.
const (
	MediaJSON     = "application/json"
	MediaProtobuf = "application/vnd.kubernetes.protobuf"
	MediaCBOR     = "application/cbor"
	// MediaCBORSeq is a CBOR watch body's Content-Type: a sequence of
	// items. The apiserver answers it but refuses it in Accept.
	MediaCBORSeq = "application/cbor-seq"
	// StreamWatch is the parameter a protobuf watch body's Content-Type
	// carries.
	StreamWatch = ";stream=watch"
)

// ContentType is the Content-Type of an answer in f: a watch stream's when
// stream is true (a 200 to a watch), else a single object's (a list, a
// Status). The apiserver marks only a protobuf stream as one: a JSON watch
// is application/json.
func (f Format) ContentType(stream bool) string {
	switch {
	case f == JSON:
		return MediaJSON
	case f == CBOR && stream:
		return MediaCBORSeq
	case f == CBOR:
		return MediaCBOR
	case stream:
		return MediaProtobuf + StreamWatch
	}
	return MediaProtobuf
}

func (f Format) String() string {
	switch f {
	case Protobuf:
		return "protobuf"
	case CBOR:
		return "cbor"
	}
	return "json"
}

// Negotiate picks the form an Accept header prefers among those the servers
// write, as the apiserver does: media ranges by quality (q), in their order
// at equal quality; no header, */* and application/* are JSON; a range asking
// for another kind of object (as=Table) is passed over, as are parameters
// other than the watch stream's. ok is false when the header admits no form
// (a 406, which keeps its JSON body).
//
// The kubelet sends "application/vnd.kubernetes.protobuf,application/json"
// and so gets protobuf; kubectl's Table request falls back to plain JSON.
func Negotiate(accept string) (Format, bool) {
	if strings.TrimSpace(accept) == "" {
		return JSON, true
	}
	type choice struct {
		f Format
		q float64
	}
	var best []choice
	for _, part := range strings.Split(accept, ",") {
		media, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		f, ok := formatOf(strings.ToLower(strings.TrimSpace(media)))
		q, plain := readParams(params)
		if ok && plain && q > 0 {
			best = append(best, choice{f, q})
		}
	}
	if len(best) == 0 {
		return JSON, false
	}
	slices.SortStableFunc(best, func(a, b choice) int {
		switch {
		case a.q > b.q:
			return -1
		case a.q < b.q:
			return 1
		}
		return 0
	})
	return best[0].f, true
}

func formatOf(media string) (Format, bool) {
	switch media {
	case "*/*", "application/*", MediaJSON:
		return JSON, true
	case MediaProtobuf:
		return Protobuf, true
	case MediaCBOR:
		return CBOR, true
	}
	return JSON, false
}

// readParams reads a media range's parameters: its quality (1 when unset),
// and plain, false when a parameter asks for something else than the object
// itself (as=Table, g=..., v=...). stream=watch and charset are plain.
func readParams(params string) (q float64, plain bool) {
	q, plain = 1, true
	for _, p := range strings.Split(params, ";") {
		k, v, _ := strings.Cut(strings.TrimSpace(p), "=")
		switch strings.ToLower(strings.TrimSpace(k)) {
		case "":
		case "q":
			x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil {
				x = 0
			}
			q = x
		case "stream", "charset":
		default:
			plain = false
		}
	}
	return q, plain
}

// Accepts reports whether an Accept header admits a form the servers write.
func Accepts(accept string) bool {
	_, ok := Negotiate(accept)
	return ok
}

// AvailableRepresentations is what a 406 from podwatch's servers offers.
const AvailableRepresentations = "application/json, application/json;stream=watch, application/vnd.kubernetes.protobuf, application/vnd.kubernetes.protobuf;stream=watch, application/cbor"
