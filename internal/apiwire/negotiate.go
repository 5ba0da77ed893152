package apiwire

import (
	"slices"
	"strconv"
	"strings"

	"github.com/podwatch/podwatch/rest/wire"
)

// Negotiate picks the form an Accept header prefers among those the servers
// write, as the apiserver does: media ranges by quality (q), in their order
// at equal quality; no header, */* and application/* are JSON; a range asking
// for another kind of object (as=Table) is passed over, as are parameters
// other than the watch stream's. ok is false when the header admits no form
// (a 406, which keeps its JSON body).
//
// The kubelet sends "application/vnd.kubernetes.protobuf,application/json"
// and so gets protobuf; kubectl's Table request falls back to plain JSON.
func Negotiate(accept string) (wire.Format, bool) {
	if strings.TrimSpace(accept) == "" {
		return wire.JSON, true
	}
	type choice struct {
		f wire.Format
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
		return wire.JSON, false
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

// formatOf is the form a media range names. application/cbor-seq is not
// among them: the apiserver answers it but refuses it in Accept.
func formatOf(media string) (wire.Format, bool) {
	switch media {
	case "*/*", "application/*":
		return wire.JSON, true
	case wire.ContentTypeCBORSeq:
		return wire.JSON, false
	}
	return wire.ParseContentType(media)
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
const AvailableRepresentations = wire.ContentTypeJSON + ", " + wire.ContentTypeJSON + ";stream=watch, " +
	wire.ContentTypeProtobuf + ", " + wire.ContentTypeProtobufWatch + ", " + wire.ContentTypeCBOR
