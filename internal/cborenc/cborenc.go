// Package cborenc writes the apiserver's CBOR (wire.CBOR: an object as one
// self-described item, a watch as a sequence of them), for podwatch's own
// servers, which answer a CBOR client in the form it asks for. Reading CBOR
// is rest/cborwire's; writing it lives here, apart from the public packages,
// with the CBOR library it is built on (github.com/fxamacker/cbor/v2, the
// one Kubernetes uses), so that a program that only watches pods does not
// pull that library in.
package cborenc

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/fxamacker/cbor/v2"

	"github.com/podwatch/podwatch/rest/cborwire"
)

// selfDescribed is the self-describe tag's header, which the apiserver
// writes before every object and watch event.
var selfDescribed = []byte{0xd9, 0xd9, 0xf7}

// encMode writes items as the apiserver does: strings, keys included, as
// byte strings; map keys in a fixed order (the apiserver's order varies
// from item to item, so any order is its order); the shortest float.
var encMode = func() cbor.EncMode {
	m, err := cbor.EncOptions{
		Sort:          cbor.SortBytewiseLexical,
		ShortestFloat: cbor.ShortestFloat16,
		String:        cbor.StringToByteString,
		FieldName:     cbor.FieldNameToByteString,
		IndefLength:   cbor.IndefLengthForbidden,
	}.EncMode()
	if err != nil {
		panic(err) // the options are constant
	}
	return m
}()

// EncodeJSON encodes the JSON value js as the apiserver writes it in CBOR:
// one self-described item. Numbers stay integers where they are, and a
// string stays a string (JSON cannot say which strings were bytes).
func EncodeJSON(js []byte) ([]byte, error) {
	v, err := parseJSON(js)
	if err != nil {
		return nil, err
	}
	return encode(v)
}

// EncodeEvent encodes a watch event of type typ whose object's JSON is obj,
// as the apiserver writes it on a CBOR watch stream (a sequence): a
// self-described map of "type" and "object", the object self-described too.
// Items follow one another on the stream without framing.
func EncodeEvent(typ string, obj []byte) ([]byte, error) {
	o, err := EncodeJSON(obj)
	if err != nil {
		return nil, err
	}
	return AppendEvent(nil, typ, o), nil
}

// AppendEvent appends to b the watch event item of type typ whose object is
// the already encoded item obj, as the apiserver writes it (its object
// first, the keys as byte strings).
func AppendEvent(b []byte, typ string, obj []byte) []byte {
	b = append(b, selfDescribed...)
	b = append(b, 0xa2) // a map of two pairs
	b = appendByteString(b, "object")
	b = append(b, obj...)
	b = appendByteString(b, "type")
	return appendByteString(b, typ)
}

// appendByteString appends s as a byte string, as the apiserver writes
// strings.
func appendByteString(b []byte, s string) []byte {
	n := uint64(len(s))
	switch {
	case n < 24:
		b = append(b, cborwire.MajorBytes<<5|byte(n))
	case n <= math.MaxUint8:
		b = append(b, cborwire.MajorBytes<<5|24, byte(n))
	case n <= math.MaxUint16:
		b = append(b, cborwire.MajorBytes<<5|25)
		b = binary.BigEndian.AppendUint16(b, uint16(n))
	case n <= math.MaxUint32:
		b = append(b, cborwire.MajorBytes<<5|26)
		b = binary.BigEndian.AppendUint32(b, uint32(n))
	default:
		b = append(b, cborwire.MajorBytes<<5|27)
		b = binary.BigEndian.AppendUint64(b, n)
	}
	return append(b, s...)
}

func encode(v any) ([]byte, error) {
	var b bytes.Buffer
	b.Write(selfDescribed)
	if err := encMode.NewEncoder(&b).Encode(v); err != nil {
		return nil, fmt.Errorf("cbor: encode: %w", err)
	}
	return b.Bytes(), nil
}

// parseJSON reads js with its numbers as integers where they are integers.
func parseJSON(js []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(js))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, fmt.Errorf("cbor: encode: read JSON: %w", err)
	}
	if d.More() {
		return nil, fmt.Errorf("cbor: encode: read JSON: more than one value")
	}
	return numbers(v), nil
}

// numbers turns the json.Numbers in v into int64, uint64 or float64, as
// the apiserver's Go types hold them.
func numbers(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = numbers(e)
		}
	case []any:
		for i, e := range x {
			x[i] = numbers(e)
		}
	case json.Number:
		if i, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return i
		}
		if u, err := strconv.ParseUint(string(x), 10, 64); err == nil {
			return u
		}
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil || math.IsInf(f, 0) {
			return string(x) // out of every range: kept as written
		}
		return f
	}
	return v
}

// AppendJSON appends to b the JSON value js as one self-described item
// (EncodeJSON), for a writer that reuses its buffer.
func AppendJSON(b, js []byte) ([]byte, error) {
	item, err := EncodeJSON(js)
	if err != nil {
		return b, err
	}
	return append(b, item...), nil
}

// AppendEventJSON appends to b the CBOR watch event item of the JSON watch
// event ev ({"type": ..., "object": ...}), its object self-described too,
// as the apiserver writes events on a CBOR watch stream.
func AppendEventJSON(b, ev []byte) ([]byte, error) {
	var e struct {
		Type   *string         `json:"type"`
		Object json.RawMessage `json:"object"`
	}
	if err := json.Unmarshal(ev, &e); err != nil {
		return b, fmt.Errorf("cbor: encode event: %w", err)
	}
	if e.Type == nil || e.Object == nil {
		return b, fmt.Errorf("cbor: encode event: want a type and an object")
	}
	obj, err := EncodeJSON(e.Object)
	if err != nil {
		return b, err
	}
	return AppendEvent(b, *e.Type, obj), nil
}
