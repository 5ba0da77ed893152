package rest

import "strings"

// EscapeFieldValue escapes v for use as a value in a field selector: the
// apiserver's parser splits terms at ',' and operators at '=', and reads '\' as
// the escape character, so each of the three gets a backslash before it.
func EscapeFieldValue(v string) string {
	if !strings.ContainsAny(v, `\,=`) {
		return v
	}
	var b strings.Builder
	b.Grow(len(v) + 4)
	for i := 0; i < len(v); i++ {
		switch c := v[i]; c {
		case '\\', ',', '=':
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// OneTermEqualSelector is the field selector "field=value", value escaped; a
// kubelet watches its pods with OneTermEqualSelector("spec.nodeName", node).
func OneTermEqualSelector(field, value string) string {
	return field + "=" + EscapeFieldValue(value)
}
