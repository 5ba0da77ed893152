package jsonx

// Encoding is a format other than JSON in which an object's unmodelled
// members can be kept: a decoder that reads, say, protobuf keeps the fields its
// type does not model in their wire form, and they become JSON only when the
// object is written. One Encoding stands for one message of that format as one
// Go type models it; its write function turns a run of kept fields back into
// JSON members.
//
// Kept values of an Encoding sit in an Extra beside JSON ones, so a type's
// WriteJSON writes them with the same ObjectWriter.Extra call, whichever
// format the object was decoded from.
type Encoding struct {
	write  func(o *ObjectWriter, runs []Field)
	member func(runs []Field, name string) []byte
}

// NewEncoding returns an Encoding whose members are written by write: it is
// handed, together, every run of members one object kept in this Encoding, in
// the order they were kept, and writes them on o as JSON members. It cannot
// fail: the decoder checked the runs when it kept them. member returns the
// JSON value of the one member name of such runs, nil when they hold none,
// for Extra.Get.
func NewEncoding(write func(o *ObjectWriter, runs []Field), member func(runs []Field, name string) []byte) *Encoding {
	return &Encoding{write: write, member: member}
}

// Encoding returns the Encoding f's Value is kept in, nil for JSON.
func (f Field) Encoding() *Encoding { return f.enc }

// KeepEncoded keeps data, a run of members in enc, among e's members. data
// must already be a copy the caller will not change (see Encoding.Share).
func (e *Extra) KeepEncoded(enc *Encoding, data []byte) {
	*e = append(*e, Field{Value: data, enc: enc})
}

// Share returns bytes equal to v shared with equal values kept in enc, as
// Share does for JSON values; values of different Encodings are never shared.
// check.Check is called, before anything is kept, only when no equal value of enc is
// alive: bytes checked once need no second check, so an object whose members
// repeat those of others (replicas, the next version of one object) is checked
// at the cost of comparing them. An error from check is returned as it is.
func (enc *Encoding) Share(v []byte, check Checker) ([]byte, error) {
	return share(enc, v, check)
}

// Checker checks a value before Encoding.Share keeps it.
type Checker interface{ Check() error }

// writeEncoded writes the run of fields of one Encoding that starts e and
// returns how many fields it took.
func (o *ObjectWriter) writeEncoded(e Extra) int {
	enc := e[0].enc
	n := 1
	for n < len(e) && e[n].enc == enc {
		n++
	}
	// A copy goes to the write function, so that o itself, written on by
	// every WriteJSON, does not escape to the heap through the call.
	c := *o
	enc.write(&c, e[:n])
	*o = c
	return n
}

// Writer returns the Writer o writes on, for an Encoding's write function.
func (o *ObjectWriter) Writer() *Writer { return o.w }
