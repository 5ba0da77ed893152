package protowire

// kind is what a field holds on the wire and in JSON.
type kind uint8

const (
	kindString  kind = iota + 1 // length-delimited; a JSON string
	kindBytes                   // length-delimited; base64 in JSON
	kindBool                    // varint; true or false
	kindInt32                   // varint, sign-extended to 64 bits when negative
	kindInt64                   // varint
	kindDouble                  // fixed64; a JSON number
	kindMessage                 // length-delimited; see the message's form
)

// form is how a message is written in JSON. Most are objects of their fields;
// the others mirror a MarshalJSON of their Go type, and their fields (as the
// generator found them) are what the transcoder expects, which a test checks.
type form uint8

const (
	formObject      form = iota
	formTime             // Timestamp{1 seconds, 2 nanos}: RFC 3339 to the second, null when empty
	formMicroTime        // Timestamp: RFC 3339 to the microsecond, null when empty
	formDuration         // 1 duration (ns): Go's duration string
	formQuantity         // 1 string: the canonical quantity, "0" when absent
	formIntOrString      // 1 type, 2 intVal, 3 strVal: a number or a string
	formRawJSON          // 1 raw: JSON bytes written as they are, null when absent
	formList             // 1 items (repeated): a named slice type (Verbs), a JSON array
)

// message is one protobuf message of the schema.
type message struct {
	name   string // Go package path (without k8s.io/) and type name
	form   form
	fields []field // in the Go struct's order, the order of the JSON members
}

// field is one field of a message.
type field struct {
	num  int32
	json string // the member name; "" for an inline (embedded) message
	kind kind   // of the value, for a map
	msg  int    // index in messages of a kindMessage field's message
	// repeated is a Go slice (but []byte), a JSON array; isMap a Go map with
	// string keys, written as entries {1 key, 2 value}, a JSON object.
	repeated, isMap bool
	// pointer is a Go pointer: absent is nil, which omitempty omits and JSON
	// writes as null, while a non-pointer absent field is its zero value.
	pointer bool
	// inline is an embedded struct: its members are written in its parent.
	inline              bool
	omitEmpty, omitZero bool
	// key is the member name as written, "json": (set at init).
	key []byte
}
