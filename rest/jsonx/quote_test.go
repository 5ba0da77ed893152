package jsonx

import (
	"bytes"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
)

// quoteSeeds are the strings on which JSON writers are known to part ways:
// what encoding/json escapes for HTML (<, > and &) or for JavaScript (U+2028,
// U+2029), invalid UTF-8 (alone, cut short, an encoded surrogate), the
// control bytes, DEL (which stays as it is), quotes and backslashes, each
// inside and at the edges of an eight-byte word.
var quoteSeeds = []string{
	"", "plain", "a<b>&c", "\u2028", "\u2029", "x\u2028y\u2029z", "\xff", "a\xffb",
	"\xe2\x80", "\xed\xa0\x80", "\xc3", "é日本語☃", "\uFFFD",
	"\x00\x01\x08\x09\x0a\x0c\x0d\x1f", "\x7f", `"`, `\`, `"\"\\`, "</script>", "a && b <c>",
	strings.Repeat("abcdefg", 3) + "<" + strings.Repeat("h", 9) + "\xff",
	"1234567\"", "12345678\\", "123456789\u2028",
}

// TestAppendQuote holds AppendQuote to encoding/json on the seeds, for
// strings and byte slices, and shows what that is on the strings the JSON
// writers used to disagree on.
func TestAppendQuote(t *testing.T) {
	for _, s := range quoteSeeds {
		want := marshalString(t, s)
		if got := AppendQuote(nil, s); !bytes.Equal(got, want) {
			t.Errorf("AppendQuote(%q) = %s, want %s", s, got, want)
		}
		if got := AppendQuote([]byte("prefix"), []byte(s)); !bytes.Equal(got, append([]byte("prefix"), want...)) {
			t.Errorf("AppendQuote(prefix, []byte(%q)) = %s, want prefix%s", s, got, want)
		}
	}
	for s, want := range map[string]string{
		"a<b>&c": `"a\u003cb\u003e\u0026c"`,
		"\u2028": `"\u2028"`,
		"\xff":   `"\ufffd"`,
		"\x7f":   "\"\x7f\"",
	} {
		if got := marshalString(t, s); string(got) != want {
			t.Fatalf("encoding/json writes %q as %s, want %s", s, got, want)
		}
	}
}

// AppendQuote allocates nothing once dst has room, from a string or bytes.
func TestAppendQuoteDoesNotAllocate(t *testing.T) {
	s := strings.Join(quoteSeeds, "")
	b := []byte(s)
	dst := make([]byte, 0, 8*len(s)+2)
	if n := testing.AllocsPerRun(100, func() { AppendQuote(dst, s) }); n != 0 {
		t.Errorf("%v allocations from a string, want 0", n)
	}
	if n := testing.AllocsPerRun(100, func() { AppendQuote(dst, b) }); n != 0 {
		t.Errorf("%v allocations from bytes, want 0", n)
	}
}

// FuzzAppendQuote holds AppendQuote to encoding/json's Marshal of a string
// on any bytes, invalid UTF-8 included, written from a string and from a
// byte slice.
func FuzzAppendQuote(f *testing.F) {
	for _, s := range quoteSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		want := marshalString(t, string(b))
		if got := AppendQuote(nil, b); !bytes.Equal(got, want) {
			t.Fatalf("AppendQuote([]byte(%q)) = %s, want %s", b, got, want)
		}
		if got := AppendQuote(nil, string(b)); !bytes.Equal(got, want) {
			t.Fatalf("AppendQuote(%q) = %s, want %s", b, got, want)
		}
	})
}

func marshalString(t *testing.T, s string) []byte {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatalf("json.Marshal(%q): %v", s, err)
	}
	return b
}

// BenchmarkAppendQuote escapes every key and string of the recorded pod, and
// three longer shapes: plain ASCII, text to escape for HTML, and non-ASCII
// text.
func BenchmarkAppendQuote(b *testing.B) {
	for _, in := range quoteCorpus(b) {
		n := 0
		for _, s := range in.strings {
			n += len(s)
		}
		b.Run(in.name, func(b *testing.B) {
			var buf []byte
			b.SetBytes(int64(n))
			for b.Loop() {
				buf = buf[:0]
				for _, s := range in.strings {
					buf = AppendQuote(buf, s)
				}
			}
		})
	}
}

type quoteInput struct {
	name    string
	strings []string
}

func quoteCorpus(tb testing.TB) []quoteInput {
	data, err := os.ReadFile("../../testdata/pod.json")
	if err != nil {
		tb.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		tb.Fatal(err)
	}
	var pod []string
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				pod = append(pod, k)
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		case string:
			pod = append(pod, v)
		}
	}
	walk(v)
	slices.Sort(pod)
	return []quoteInput{
		{"pod", pod},
		{"ascii1k", []string{strings.Repeat("abcdefghijklmnopqrstuvwxyz012345", 32)}},
		{"html", []string{strings.Repeat(`a<b>&c "q" \ `, 40)}},
		{"unicode", []string{strings.Repeat("héllo wörld ☃ \u2028 日本語 ", 20)}},
	}
}
