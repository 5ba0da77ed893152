package protowire

// AppendJSONString appends s as the apiserver writes a JSON string (see
// appendString), for the other formats' transcoders, so that every format
// podwatch reads escapes strings one way.
func AppendJSONString(b, s []byte) []byte { return appendString(b, s) }
