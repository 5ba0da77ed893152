package jsonx

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf8"
	"unsafe"

	"github.com/podwatch/podwatch/internal/stream/jsonstr"
)

// AppendQuote appends s to dst as a JSON string, byte for byte as
// encoding/json's Marshal writes the Go string s: '"' and '\\' escaped, the
// control bytes as \b, \f, \n, \r, \t or \u00XX, '<', '>' and '&' as \u003c,
// \u003e and \u0026, U+2028 and U+2029 as \u2028 and \u2029, and each byte
// that is not part of valid UTF-8 as \ufffd; everything else as it is.
//
// It is podwatch's one JSON string escaper: the Writer, the protobuf and CBOR
// transcoders and podwatch's servers all write strings with it, so that an
// object is the same bytes whichever format it came in, and the bytes the
// apiserver, which writes with encoding/json, sends.
func AppendQuote[S string | []byte](dst []byte, s S) []byte {
	switch v := any(s).(type) {
	case string:
		return appendQuote(dst, bytesOf(v))
	default:
		return appendQuote(dst, v.([]byte))
	}
}

// bytesOf returns the bytes of s in place, for appendQuote, which only reads
// them: one body serves strings and byte slices, and neither is copied.
func bytesOf(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// appendQuote is AppendQuote. It scans for the next byte to escape in its own
// loop: a call for each, as a function of its own would cost, is a fifth of
// the time on a pod's short strings.
func appendQuote(dst, s []byte) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; ; {
		// The run to copy: a word at a time, and the bytes after the last
		// whole word one by one (at once done after a word's stop). Right
		// after an escape, the first bytes go one by one: text that has one
		// byte to escape often has more close by.
		if i > 0 {
			for _, c := range s[i:min(i+8, len(s))] {
				if !htmlSafe[c] {
					break
				}
				i++
			}
		}
		if i < len(s) && htmlSafe[s[i]] {
			for ; i+8 <= len(s); i += 8 {
				if m := jsonstr.EscapeStops(binary.LittleEndian.Uint64(s[i:])); m != 0 {
					i += bits.TrailingZeros64(m) >> 3
					break
				}
			}
			for _, c := range s[i:] {
				if !htmlSafe[c] {
					break
				}
				i++
			}
		}
		if i == len(s) {
			break
		}
		if c := s[i]; c < utf8.RuneSelf {
			dst = appendEscapedByte(append(dst, s[start:i]...), c)
			i++
			start = i
			continue
		}
		// Runes are decoded while they come, so that text in another
		// script costs no return to the scan for each.
		for i < len(s) && s[i] >= utf8.RuneSelf {
			r, size := utf8.DecodeRune(s[i:])
			switch {
			case r == utf8.RuneError && size == 1:
				dst = append(append(dst, s[start:i]...), `\ufffd`...)
				start = i + size
			case r == '\u2028' || r == '\u2029':
				// Valid JSON, but line terminators in JavaScript:
				// escaped so that the JSON stays a valid script.
				dst = append(append(dst, s[start:i]...), '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
				start = i + size
			}
			i += size
		}
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// htmlSafe holds the bytes copied as they are (those EscapeStops does not
// flag), for the bytes appendQuote looks at one by one: one load where there
// would be seven tests.
var htmlSafe = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

const hexDigits = "0123456789abcdef"

// appendEscapedByte appends the escape of an ASCII byte htmlSafe does not pass.
func appendEscapedByte(dst []byte, c byte) []byte {
	switch c {
	case '"', '\\':
		return append(dst, '\\', c)
	case '\b':
		return append(dst, '\\', 'b')
	case '\f':
		return append(dst, '\\', 'f')
	case '\n':
		return append(dst, '\\', 'n')
	case '\r':
		return append(dst, '\\', 'r')
	case '\t':
		return append(dst, '\\', 't')
	}
	// The other control bytes, and '<', '>' and '&'.
	return append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
}
