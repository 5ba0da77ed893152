package rest

import (
	"strings"
	"testing"
)

// frameAll frames data as one value, in blocks where possible or byte by byte
// only, and says where the value ended (-1: not within data) or where it failed.
func frameAll(data []byte, blocks bool) (end int, failed bool) {
	var f frameState
	f.reset(maxDepth, data[0])
	f.blocks = f.blocks && blocks
	n, done, err := f.scan(data, 0)
	switch {
	case err != nil:
		return err.(*frameError).pos, true
	case done:
		return n, false
	}
	return -1, false
}

// FuzzFrame checks that the 64-byte block scan and the byte loop agree on every
// input, wherever it puts its quotes, backslashes and brackets.
func FuzzFrame(f *testing.F) {
	for _, s := range []string{
		`{"a":"b"}`,
		`{"a":["\"]}\\",{"b":"\\\\"}]}` + strings.Repeat(" ", 70),
		strings.Repeat(`{"k":"v\"\\",`, 20) + `"x":[]` + strings.Repeat("}", 20),
		`[` + strings.Repeat(`"\\\\\\\"",`, 30) + `1]`,
		`{` + strings.Repeat("a", 63) + `\"}"}`,
		`{"a":]`,
		`[` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 || (data[0] != '{' && data[0] != '[') {
			return
		}
		be, bf := frameAll(data, true)
		ye, yf := frameAll(data, false)
		if be != ye || bf != yf {
			t.Fatalf("blocks end at %d (failed %v), bytes at %d (failed %v)", be, bf, ye, yf)
		}
	})
}
