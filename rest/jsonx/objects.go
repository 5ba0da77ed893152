package jsonx

// Objects keeps one unmodelled member whose value is an array of objects
// member by member instead of as one value. Keep shares a large value only
// when all of it equals a value kept elsewhere; an object whose one small
// member differs (a timestamp) would then cost its whole size again. Kept
// member by member, the large members that do repeat (the field sets of a
// pod's managedFields entries, the same in every replica of a template) are
// still shared. A value that is not a non-empty array of objects is kept
// whole, as Keep keeps it. Objects are read-only once read.
type Objects struct {
	items []Extra // the objects, when the value was a non-empty array of them
	raw   []byte  // the value, otherwise
}

// Read consumes the next value into o.
func (o *Objects) Read(r *Reader) {
	*o = Objects{}
	if r.Kind() != '[' {
		o.raw = r.hold(r.Raw())
		return
	}
	start := r.pos
	objects := true
	// The members of all the objects go to one slice, cut into objects at the
	// end: two allocations per value instead of a few per object.
	flat := make(Extra, 0, 16)
	var ends []int
	r.Array(func() {
		if !objects || r.Kind() != '{' {
			objects = false
			r.Skip()
			return
		}
		r.Object(func(name []byte) { flat.Keep(r, name) })
		ends = append(ends, len(flat))
	})
	switch {
	case r.Err() != nil:
	case objects && len(ends) > 0:
		o.items = make([]Extra, len(ends))
		begin := 0
		for i, end := range ends {
			o.items[i] = flat[begin:end:end]
			begin = end
		}
	default:
		o.raw = r.hold(r.data[start:r.pos])
	}
}

// ObjectsOf returns Objects holding items, each the kept members of one
// object: what a decoder of another format (see Encoding) builds where Read
// would have read JSON.
func ObjectsOf(items []Extra) Objects {
	if items == nil {
		return Objects{}
	}
	return Objects{items: items}
}

// IsSet reports whether o holds a value.
func (o Objects) IsSet() bool { return o.items != nil || o.raw != nil }

// Len is the number of objects kept member by member: 0 when the value was
// kept whole.
func (o Objects) Len() int { return len(o.items) }

// Member returns the raw value of member name of object i (0 <= i < Len()), or
// nil when that object has no such member.
func (o Objects) Member(i int, name string) []byte { return o.items[i].Get(name) }

// Item returns the members of object i (0 <= i < Len()) as kept.
func (o Objects) Item(i int) Extra { return o.items[i] }

// Raw returns the value as JSON, nil when unset.
func (o Objects) Raw() []byte {
	if o.items == nil {
		return o.raw
	}
	return Encode(o.write)
}

func (o Objects) write(w *Writer) {
	if o.items == nil {
		w.Raw(o.raw)
		return
	}
	a := w.BeginArray()
	for _, item := range o.items {
		a.Next()
		m := w.BeginObject()
		m.Extra(item)
		m.End()
	}
	a.End()
}

// KeepObjects reads the next value, under name, into o and marks its place
// among the members e keeps, so that ExtraWith writes it back where it came.
// A name that comes twice keeps its first place and its last value, which is
// the value readers of JSON take: o holds one value, so it is written once.
func (e *Extra) KeepObjects(r *Reader, name []byte, o *Objects) {
	n := intern(name) // name may alias scratch space that reading the value reuses
	o.Read(r)
	if r.Err() != nil {
		return
	}
	e.MarkObjects(n)
}

// MarkObjects marks the place, among the members e keeps, of the Objects
// kept under name, for ExtraWith to write them there; a second mark of the
// same name is ignored.
func (e *Extra) MarkObjects(name string) {
	for _, f := range *e {
		if f.Value == nil && f.Name == name && f.Encoding() == nil {
			return
		}
	}
	*e = append(*e, Field{Name: name}) // no Value: the place of the Objects
}
