package apiwire

import (
	"slices"
	"strconv"
	"strings"

	"github.com/podwatch/podwatch/internal/table"
	"github.com/podwatch/podwatch/rest/wire"
)

// Media is what a client is answered in: a wire form, and for a request
// for a Table of the objects (kubectl's), the meta.k8s.io version of the
// Table asked for.
type Media struct {
	Format wire.Format
	// Table is table.V1 or table.V1beta1 when the chosen media range asks
	// for a Table, "" when it asks for the objects themselves.
	Table string
}

// Negotiate picks the form an Accept header prefers among those the servers
// write; see NegotiateMedia. It is the wire form only: a Table comes in
// JSON.
func Negotiate(accept string) (wire.Format, bool) {
	m, ok := NegotiateMedia(accept)
	return m.Format, ok
}

// NegotiateMedia picks what an Accept header prefers among what the servers
// write, as the apiserver does: media ranges by quality (q), in their order
// at equal quality; no header, */* and application/* are JSON. A range may
// ask for the objects as a Table (as=Table;g=meta.k8s.io;v=v1 or v1beta1),
// which is answered in JSON, for application/json and */* (the apiserver
// refuses a Table in protobuf or CBOR, and for application/*); a range
// asking for another kind of object, or with parameters other than the
// watch stream's and the charset, is passed over. ok is false when the
// header admits nothing (a 406, which keeps its JSON body).
//
// The kubelet sends protobuf's media type, then JSON's, and so gets
// protobuf; kubectl's get sends "application/json;as=Table;
// v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,
// application/json" and gets a v1 Table.
func NegotiateMedia(accept string) (Media, bool) {
	if strings.TrimSpace(accept) == "" {
		return Media{Format: wire.JSON}, true
	}
	type choice struct {
		m Media
		q float64
	}
	var best []choice
	for _, part := range strings.Split(accept, ",") {
		media, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		media = strings.ToLower(strings.TrimSpace(media))
		f, ok := formatOf(media)
		p := readParams(params)
		if p.table != "" && media != wire.ContentTypeJSON && media != "*/*" {
			ok = false
		}
		if ok && p.plain && p.q > 0 {
			best = append(best, choice{Media{Format: f, Table: p.table}, p.q})
		}
	}
	if len(best) == 0 {
		return Media{Format: wire.JSON}, false
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
	return best[0].m, true
}

// formatOf is the form a media range names. wire.ContentTypeCBORSeq is not
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

// rangeParams are what a media range's parameters ask.
type rangeParams struct {
	q     float64 // its quality: 1 when unset
	table string  // the Table version as=Table asks for, "" for the objects themselves
	// plain is false when a parameter asks for something podwatch's
	// servers do not write: another kind of object than a Table, a group
	// or version without as=Table, or a parameter they do not know.
	plain bool
}

// readParams reads a media range's parameters. stream=watch and charset
// change nothing; as, g and v together ask for a Table (their values are
// matched exactly, as the apiserver matches them).
func readParams(params string) rangeParams {
	p := rangeParams{q: 1, plain: true}
	var as, g, v string
	converts := false
	for _, param := range strings.Split(params, ";") {
		k, val, _ := strings.Cut(strings.TrimSpace(param), "=")
		val = strings.TrimSpace(val)
		switch strings.ToLower(strings.TrimSpace(k)) {
		case "":
		case "q":
			x, err := strconv.ParseFloat(val, 64)
			if err != nil {
				x = 0
			}
			p.q = x
		case "stream", "charset":
		case "as":
			as, converts = val, true
		case "g":
			g, converts = val, true
		case "v":
			v, converts = val, true
		default:
			p.plain = false
		}
	}
	if converts {
		if as == "Table" && g == "meta.k8s.io" && (v == table.V1 || v == table.V1beta1) {
			p.table = v
		} else {
			p.plain = false
		}
	}
	return p
}

// Accepts reports whether an Accept header admits a form the servers write.
func Accepts(accept string) bool {
	_, ok := NegotiateMedia(accept)
	return ok
}

// AvailableRepresentations is what a 406 from podwatch's servers offers.
const AvailableRepresentations = wire.ContentTypeJSON + ", " + wire.ContentTypeJSON + ";stream=watch, " +
	wire.ContentTypeProtobuf + ", " + wire.ContentTypeProtobufWatch + ", " + wire.ContentTypeCBOR
