package jsonx

// fastDepth is the nesting skipFast follows, one bit of a word per level.
const fastDepth = 64

// skipFast returns the end of the well-formed value that starts at or after
// whitespace at i, or false when the value is malformed, is cut short, or
// nests deeper than room or fastDepth; skipValue's walk then skips it again
// from the same start, to decide and name the fault. It is one function on
// purpose: the cursor, the depth and the kinds of the open containers (a bit
// per level) stay in locals and whitespace costs one comparison where there
// is none. Strings go through stringEnd, the reader's one string scan (eight
// bytes a step); numbers with a fraction or an exponent, rare in pods,
// through skipFraction.
func skipFast(data []byte, i, room int) (int, bool) {
	var objects uint64 // bit d is set when the container at depth d+1 is an object
	depth := 0
	limit := min(fastDepth, room)
	wantKey := false // the string at i is an object key, and ':' follows it
	for {
		// A value (or a key) starts at or after i.
		if i >= len(data) {
			return 0, false
		}
		c := data[i]
		if c <= ' ' {
			if i = skipWhite(data, i); i >= len(data) {
				return 0, false
			}
			c = data[i]
		}
		if wantKey && c != '"' {
			return 0, false
		}
		switch {
		case c == '"':
			var ok bool
			if i, _, ok = stringEnd(data, i+1); !ok {
				return 0, false
			}
			if wantKey {
				wantKey = false
				if i < len(data) && data[i] <= ' ' {
					i = skipWhite(data, i)
				}
				if i >= len(data) || data[i] != ':' {
					return 0, false
				}
				i++
				continue
			}
		case c == '{' || c == '[':
			if depth >= limit {
				return 0, false
			}
			i++
			if i < len(data) && data[i] <= ' ' {
				i = skipWhite(data, i)
			}
			if i >= len(data) {
				return 0, false
			}
			if data[i] == c+2 { // '}' is '{'+2, ']' is '['+2
				i++
				break
			}
			if c == '{' {
				objects |= 1 << depth
				wantKey = true
			} else {
				objects &^= 1 << depth
			}
			depth++
			continue
		case c == 't':
			if len(data)-i < 4 || string(data[i:i+4]) != "true" {
				return 0, false
			}
			i += 4
		case c == 'f':
			if len(data)-i < 5 || string(data[i:i+5]) != "false" {
				return 0, false
			}
			i += 5
		case c == 'n':
			if len(data)-i < 4 || string(data[i:i+4]) != "null" {
				return 0, false
			}
			i += 4
		case c == '-' || '0' <= c && c <= '9':
			if c == '-' {
				i++
			}
			digits := i
			for i < len(data) && '0' <= data[i] && data[i] <= '9' {
				i++
			}
			if i == digits || data[digits] == '0' && i-digits > 1 {
				return 0, false
			}
			if i < len(data) && (data[i] == '.' || data[i]|0x20 == 'e') {
				var ok bool
				if i, ok = skipFraction(data, i); !ok {
					return 0, false
				}
			}
		default:
			return 0, false
		}
		// A value ended at i: close what it completes, then find the next one.
		for {
			if depth == 0 {
				return i, true
			}
			if i < len(data) && data[i] <= ' ' {
				i = skipWhite(data, i)
			}
			if i >= len(data) {
				return 0, false
			}
			inObject := objects>>(depth-1)&1 != 0
			switch c := data[i]; {
			case c == ',':
				i++
				wantKey = inObject
			case c == '}' && inObject, c == ']' && !inObject:
				i++
				depth--
				continue
			default:
				return 0, false
			}
			break
		}
	}
}

// skipWhite returns the index of the first byte at or after i that is not
// JSON whitespace. skipFast calls it only where a byte <= ' ' was seen.
func skipWhite(data []byte, i int) int {
	for ; i < len(data); i++ {
		switch data[i] {
		case ' ', '\t', '\n', '\r':
		default:
			return i
		}
	}
	return i
}

// skipFraction consumes a number's fraction and exponent from i.
func skipFraction(data []byte, i int) (int, bool) {
	if data[i] == '.' {
		i++
		f := i
		for i < len(data) && '0' <= data[i] && data[i] <= '9' {
			i++
		}
		if i == f {
			return 0, false
		}
	}
	if i < len(data) && data[i]|0x20 == 'e' {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		e := i
		for i < len(data) && '0' <= data[i] && data[i] <= '9' {
			i++
		}
		if i == e {
			return 0, false
		}
	}
	return i, true
}
