package protowire

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/podwatch/podwatch/rest/jsonx"
)

// The forms: messages whose JSON mirrors a MarshalJSON of their Go type
// rather than listing their fields, and floats, which JSON writes its own way.

// double writes a float as encoding/json does: fixed notation between 1e-6
// and 1e21, exponent notation outside, without a leading zero in the exponent.
func (t *Transcoder) double(f *field, v occ) error {
	x := math.Float64frombits(v.val)
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return &SyntaxError{Offset: v.at, Msg: "field " + f.json + " is not a finite number"}
	}
	format := byte('f')
	if a := math.Abs(x); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	b := strconv.AppendFloat(nil, x, format, -1, 64)
	if format == 'e' {
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b = append(b[:n-2], b[n-1])
		}
	}
	t.w.Raw(b)
	return nil
}

// rawJSON writes a RawExtension's or FieldsV1's raw bytes, which must be one
// JSON value; none is null, as their MarshalJSON writes it.
func (t *Transcoder) rawJSON(data []byte, base int64) error {
	raw, at, err := t.scalarField(data, base, 1, wireBytes)
	if err != nil {
		return err
	}
	if len(raw.data) == 0 {
		t.w.Null()
		return nil
	}
	var r jsonx.Reader
	r.Reset(raw.data)
	r.Base = at
	r.Skip()
	if r.Err() == nil && !r.AtEnd() {
		r.Fail("data after the value")
	}
	if err := r.Err(); err != nil {
		return fmt.Errorf("protobuf: embedded JSON: %w", err)
	}
	t.w.Raw(raw.data)
	return nil
}

// special writes the forms that are one JSON scalar.
func (t *Transcoder) special(mi int, data []byte, base int64) error {
	start := len(t.occs)
	defer func() { t.occs = t.occs[:start] }()
	var err error
	if t.occs, err = scanFields(t.occs, data, base); err != nil {
		return err
	}
	var vals [4]occ // the forms' fields are numbered 1 to 3
	for _, o := range t.occs[start:] {
		if o.num >= int32(len(vals)) {
			continue
		}
		if want := formWire(messages[mi].form, o.num); o.wire != want {
			return &SyntaxError{Offset: o.at, Msg: fmt.Sprintf("%s field %d has wire type %d", messages[mi].name, o.num, o.wire)}
		}
		vals[o.num] = o
	}
	switch messages[mi].form {
	case formTime, formMicroTime:
		if len(data) == 0 {
			t.w.Null()
			return nil
		}
		ts := time.Unix(int64(vals[1].val), 0).UTC()
		layout := time.RFC3339
		if messages[mi].form == formMicroTime {
			ns := time.Duration(int32(vals[2].val)).Truncate(time.Microsecond)
			ts = time.Unix(int64(vals[1].val), int64(ns)).UTC()
			layout = "2006-01-02T15:04:05.000000Z07:00"
		}
		if ts.IsZero() {
			t.w.Null()
			return nil
		}
		// A timestamp holds nothing a JSON string escapes.
		t.str = append(ts.AppendFormat(append(t.str[:0], '"'), layout), '"')
		t.w.Raw(t.str)
	case formDuration:
		t.w.String(time.Duration(int64(vals[1].val)).String())
	case formQuantity:
		if len(vals[1].data) == 0 {
			t.w.String("0")
			return nil
		}
		t.string(vals[1].data)
	case formIntOrString:
		if vals[1].val == 0 {
			t.w.Int64(int64(int32(vals[2].val)))
			return nil
		}
		t.string(vals[3].data)
	}
	return nil
}

// scalarField finds field num of data with the given wire type; absent, it
// returns the zero occurrence.
func (t *Transcoder) scalarField(data []byte, base int64, num int32, wire uint8) (occ, int64, error) {
	start := len(t.occs)
	defer func() { t.occs = t.occs[:start] }()
	var err error
	if t.occs, err = scanFields(t.occs, data, base); err != nil {
		return occ{}, 0, err
	}
	var v occ
	for _, o := range t.occs[start:] {
		if o.num == num {
			if o.wire != wire {
				return occ{}, 0, &SyntaxError{Offset: o.at, Msg: fmt.Sprintf("field %d has wire type %d", num, o.wire)}
			}
			v = o
		}
	}
	return v, v.at, nil
}

// formWire is the wire type of field num of a scalar form: the strings of a
// Quantity and an IntOrString are length-delimited, the rest varints.
func formWire(f form, num int32) uint8 {
	if f == formQuantity && num == 1 || f == formIntOrString && num == 3 {
		return wireBytes
	}
	return wireVarint
}
