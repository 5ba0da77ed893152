package jsonx

import "github.com/podwatch/podwatch/internal/stream/jsonstr"

// skipFast skips the value at data[p:] as skipValue does and returns where
// it ends, in one function: the cursor and a bitset of the open brackets in
// locals, whitespace tested by one compare before its loop, strings scanned
// eight bytes at a time, no call per token. ok is false, and skipValue's
// slower walk then decides and names the fault, wherever the value is
// malformed, nests more than 64 deep or deeper than maxDepth allows, or ends
// with the input; so what it takes skipValue takes, and ends at the same
// byte.
func skipFast(data []byte, p, maxDepth int) (end int, ok bool) {
	var objects uint64 // bit d: the bracket open at depth d is an object's
	depth := 0
	for {
		// A value is expected here.
		if p = skipWS(data, p); p >= len(data) {
			return p, false
		}
		switch c := data[p]; {
		case c == '"':
			if p, ok = skipString(data, p+1); !ok {
				return p, false
			}
		case c == '{' || c == '[':
			if depth >= 64 || depth >= maxDepth {
				return p, false
			}
			if p = skipWS(data, p+1); p >= len(data) {
				return p, false
			}
			if c == '{' && data[p] == '}' || c == '[' && data[p] == ']' {
				p++
				break
			}
			if c == '{' {
				objects |= 1 << depth
				depth++
				if p, ok = skipKey(data, p); !ok {
					return p, false
				}
			} else {
				objects &^= 1 << depth
				depth++
			}
			continue
		case c == 't':
			if p, ok = skipWord(data, p, "true"); !ok {
				return p, false
			}
		case c == 'f':
			if p, ok = skipWord(data, p, "false"); !ok {
				return p, false
			}
		case c == 'n':
			if p, ok = skipWord(data, p, "null"); !ok {
				return p, false
			}
		case c == '-' || '0' <= c && c <= '9':
			if p, ok = skipNumber(data, p); !ok {
				return p, false
			}
		default:
			return p, false
		}
		// A value ended: close what it completes, then expect the next one.
		for {
			if depth == 0 {
				return p, true
			}
			if p = skipWS(data, p); p >= len(data) {
				return p, false
			}
			object := objects&(1<<(depth-1)) != 0
			c := data[p]
			if c == ',' {
				if object {
					if p, ok = skipKey(data, p+1); !ok {
						return p, false
					}
				} else {
					p++
				}
				break
			}
			if object && c == '}' || !object && c == ']' {
				p++
				depth--
				continue
			}
			return p, false
		}
	}
}

func skipWS(data []byte, p int) int {
	for p < len(data) && data[p] <= ' ' {
		if c := data[p]; c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return len(data) // not whitespace: let the slow walk name it
		}
		p++
	}
	return p
}

// skipKey skips `"key":` and returns where the value starts.
func skipKey(data []byte, p int) (int, bool) {
	if p = skipWS(data, p); p >= len(data) || data[p] != '"' {
		return p, false
	}
	p, ok := skipString(data, p+1)
	if !ok {
		return p, false
	}
	if p = skipWS(data, p); p >= len(data) || data[p] != ':' {
		return p, false
	}
	return p + 1, true
}

// skipString skips a string's body and closing quote, from data[p:].
func skipString(data []byte, p int) (int, bool) {
	for {
		if p = jsonstr.PlainEnd(data, p); p >= len(data) {
			return p, false
		}
		switch data[p] {
		case '"':
			return p + 1, true
		case '\\':
			if p+1 >= len(data) {
				return p, false
			}
			switch data[p+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				p += 2
			case 'u':
				if p+5 >= len(data) || !isHex4(data[p+2:p+6]) {
					return p, false
				}
				p += 6
			default:
				return p, false
			}
		default: // a control byte
			return p, false
		}
	}
}

func skipWord(data []byte, p int, word string) (int, bool) {
	if len(data)-p < len(word) || string(data[p:p+len(word)]) != word {
		return p, false
	}
	return p + len(word), true
}

// skipNumber skips a number as Reader.number reads one.
func skipNumber(data []byte, p int) (int, bool) {
	if data[p] == '-' {
		p++
	}
	digits := p
	for p < len(data) && '0' <= data[p] && data[p] <= '9' {
		p++
	}
	if p == digits || data[digits] == '0' && p-digits > 1 {
		return p, false
	}
	if p < len(data) && data[p] == '.' {
		p++
		f := p
		for p < len(data) && '0' <= data[p] && data[p] <= '9' {
			p++
		}
		if p == f {
			return p, false
		}
	}
	if p < len(data) && (data[p] == 'e' || data[p] == 'E') {
		p++
		if p < len(data) && (data[p] == '+' || data[p] == '-') {
			p++
		}
		e := p
		for p < len(data) && '0' <= data[p] && data[p] <= '9' {
			p++
		}
		if p == e {
			return p, false
		}
	}
	return p, true
}
