// Package protoenc writes the Kubernetes protobuf wire for podwatch's own
// servers, which answer a protobuf client (a kubelet) in the form it asks
// for: envelopes, watch frames, and an object's message from the JSON the
// apiserver would have sent for it. Reading protobuf is rest/protowire's;
// writing it is no part of what a program that watches pods needs, so its
// API lives here, under internal/.
//
// The Encoder's work is done in rest/protowire, which registers it here
// when it is loaded: writing a message walks the same schema as reading
// one, and that schema's layout is protowire's own, kept out of its public
// API. The Append functions need no schema and are this package's.
package protoenc

// Encoder writes an object given as the apiserver's JSON as the protobuf the
// apiserver sends for it: the inverse of protowire's Transcoder, checked
// byte for byte against what the apiserver sent (see rest/protowire's
// encoder for the rules). JSON the schema cannot hold is a
// *protowire.SchemaError naming the member; malformed JSON a
// *jsonx.SyntaxError. An Encoder reuses its scratch space and is not safe for
// concurrent use.
type Encoder interface {
	// Message appends the message of an object of root kind (Pod, PodList,
	// Status) whose JSON is data, without an envelope.
	Message(b []byte, kind string, data []byte) ([]byte, error)
	// Envelope appends the envelope of the object whose JSON is data (its
	// kind and apiVersion members name it), as a list or a single object is
	// answered.
	Envelope(b []byte, data []byte) ([]byte, error)
	// WatchFrame appends one watch frame of type typ whose object's JSON is
	// object.
	WatchFrame(b []byte, typ string, object []byte) ([]byte, error)
	// EventFrame appends the watch frame of one JSON watch event.
	EventFrame(b []byte, event []byte) ([]byte, error)
}

var newEncoder func() Encoder

// Register is how rest/protowire hands over its encoder; it is called once,
// from protowire's init.
func Register(f func() Encoder) { newEncoder = f }

// New returns a fresh Encoder.
func New() Encoder {
	if newEncoder == nil {
		panic("protoenc: rest/protowire is not linked in to register its encoder")
	}
	return newEncoder()
}
