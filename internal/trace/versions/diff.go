package versions

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/podwatch/podwatch/internal/trace"
	"github.com/podwatch/podwatch/rest/jsonx"
)

// DiffMode says whether a trace tells what each MODIFIED event changed
// (Event.Diff), and what it leaves out.
type DiffMode int

const (
	// DiffOff tells no changes, and keeps no earlier versions.
	DiffOff DiffMode = iota
	// DiffFields leaves out what changes with nearly every write and says
	// little: metadata.managedFields (which manager set which field, with a
	// time) and metadata.resourceVersion (new with every write; the event's
	// own line shows it already).
	DiffFields
	// DiffAll leaves nothing out.
	DiffAll
)

// leftOut are the JSON pointers DiffFields leaves out, with all under them.
var leftOut = map[string]bool{"/metadata/managedFields": true, "/metadata/resourceVersion": true}

// DiffJSON returns what turns the JSON document prev into next, as JSON
// patch operations in an order that applies: add, remove and replace, each
// at a JSON pointer (RFC 6901: "~" is written "~0" and "/" "~1", so the
// annotation kubernetes.io/config.seen is /metadata/annotations/kubernetes.io~1config.seen).
//
// Objects are compared member by member, in key order, so that one object
// gives one diff whatever order its JSON lists its members in (CBOR and
// JSON do not agree on it). Arrays are compared index by index, which
// keeps a change inside a list readable (/spec/containers/0/image rather
// than the whole list replaced) but tells an element inserted at the front
// as a change of every element after it. Elements past the shorter array
// are added in ascending order or removed in descending order. Numbers are
// equal when their values are (1 and 1.0), strings when their text is
// (whatever the escaping); a number never equals a string. Values are
// written as canonical JSON: members in key order, no HTML escaping.
func DiffJSON(prev, next []byte, mode DiffMode) ([]trace.Change, error) {
	d := differ{mode: mode}
	if err := d.value("", prev, next); err != nil {
		return nil, fmt.Errorf("diff: %w", err)
	}
	return d.out, nil
}

type differ struct {
	mode DiffMode
	out  []trace.Change
}

func (d *differ) skipped(path string) bool { return d.mode != DiffAll && leftOut[path] }

func (d *differ) value(path string, a, b []byte) error {
	if d.skipped(path) {
		return nil
	}
	a, b = bytes.TrimSpace(a), bytes.TrimSpace(b)
	if bytes.Equal(a, b) {
		return nil
	}
	ka, kb := kindOf(a), kindOf(b)
	switch {
	case ka == '{' && kb == '{':
		return d.object(path, a, b)
	case ka == '[' && kb == '[':
		return d.array(path, a, b)
	}
	ca, err := canonical(a)
	if err != nil {
		return err
	}
	cb, err := canonical(b)
	if err != nil {
		return err
	}
	if ka == kb && (bytes.Equal(ca, cb) || ka == '0' && sameNumber(ca, cb)) {
		return nil
	}
	d.out = append(d.out, trace.Change{Op: "replace", Path: path, From: ca, Value: cb})
	return nil
}

func (d *differ) object(path string, a, b []byte) error {
	ma, err := members(a)
	if err != nil {
		return err
	}
	mb, err := members(b)
	if err != nil {
		return err
	}
	keys := make([]string, 0, len(ma)+len(mb))
	for k := range ma {
		keys = append(keys, k)
	}
	for k := range mb {
		if _, ok := ma[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		p := path + "/" + escapePointer(k)
		va, inA := ma[k]
		vb, inB := mb[k]
		var err error
		switch {
		case inA && inB:
			err = d.value(p, va, vb)
		case inB:
			err = d.whole("add", p, vb)
		default:
			err = d.whole("remove", p, va)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (d *differ) array(path string, a, b []byte) error {
	la, err := elements(a)
	if err != nil {
		return err
	}
	lb, err := elements(b)
	if err != nil {
		return err
	}
	for i := range min(len(la), len(lb)) {
		if err := d.value(path+"/"+strconv.Itoa(i), la[i], lb[i]); err != nil {
			return err
		}
	}
	for i := len(la); i < len(lb); i++ {
		if err := d.whole("add", path+"/"+strconv.Itoa(i), lb[i]); err != nil {
			return err
		}
	}
	for i := len(la) - 1; i >= len(lb); i-- {
		if err := d.whole("remove", path+"/"+strconv.Itoa(i), la[i]); err != nil {
			return err
		}
	}
	return nil
}

// whole tells a value added (v is the new one) or removed (v is the old).
func (d *differ) whole(op, path string, v []byte) error {
	if d.skipped(path) {
		return nil
	}
	c, err := canonical(v)
	if err != nil {
		return err
	}
	ch := trace.Change{Op: op, Path: path, Value: c}
	if op == "remove" {
		ch.From, ch.Value = c, nil
	}
	d.out = append(d.out, ch)
	return nil
}

// members reads a JSON object's members, each value's bytes a subslice of
// v: only the members on the way to a change are read again.
func members(v []byte) (map[string][]byte, error) {
	m := map[string][]byte{}
	valid := true
	r := jsonx.NewReader(v)
	r.Object(func(key []byte) {
		valid = valid && utf8.Valid(key)
		m[string(key)] = r.Raw()
	})
	if err := wholeValue(r); err != nil {
		return nil, err
	}
	if !valid {
		// A key that is not UTF-8 is written in a path as encoding/json
		// writes it, with U+FFFD: read such an object its way.
		var raw map[string]json.RawMessage
		if err := json.Unmarshal(v, &raw); err != nil {
			return nil, err
		}
		clear(m)
		for k, val := range raw {
			m[k] = val
		}
	}
	return m, nil
}

// elements reads a JSON array's elements, as members does.
func elements(v []byte) ([][]byte, error) {
	var l [][]byte
	r := jsonx.NewReader(v)
	r.Array(func() { l = append(l, r.Raw()) })
	if err := wholeValue(r); err != nil {
		return nil, err
	}
	return l, nil
}

// wholeValue is r's error, or one if anything follows the value it read.
func wholeValue(r *jsonx.Reader) error {
	if r.Err() == nil && !r.AtEnd() {
		r.Fail("bytes after the value")
	}
	return r.Err()
}

// kindOf is a JSON value's kind: '{', '[', '"', '0' (a number), or its
// first byte (t, f, n).
func kindOf(v []byte) byte {
	if len(v) == 0 {
		return 0
	}
	switch c := v[0]; {
	case c == '-' || c >= '0' && c <= '9':
		return '0'
	default:
		return c
	}
}

// canonical is v with its members in key order, numbers as written, and
// strings escaped only where JSON must.
func canonical(v []byte) (json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(v))
	dec.UseNumber()
	var x any
	if err := dec.Decode(&x); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("bytes after the value at offset %d", dec.InputOffset())
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(x); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

func sameNumber(a, b []byte) bool {
	x, errA := strconv.ParseFloat(string(a), 64)
	y, errB := strconv.ParseFloat(string(b), 64)
	return errA == nil && errB == nil && x == y
}

// escapePointer escapes one JSON pointer segment (RFC 6901).
func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}
