package meta

import (
	"encoding/json"
	"math/big"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// statusSeeds are Status bodies as the apiserver sends them, and near misses.
var statusSeeds = []string{
	`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 1 (4)","reason":"Expired","code":410}`,
	`{"kind":"Status","apiVersion":"v1","metadata":{"resourceVersion":""},"status":"Failure","message":"the server has received too many requests","reason":"TooManyRequests","details":{"causes":[{"reason":"UnexpectedServerResponse","message":"x"}],"retryAfterSeconds":3},"code":429}`,
	`{"kind":"Status","status":"Failure","reason":"Forbidden","details":{"name":"p","kind":"pods","uid":"u","group":""},"code":403}`,
	`{"code":500}`,
	`{"kind":"Pod","metadata":{"name":"p"}}`,
	`<html><body>502 Bad Gateway</body></html>`,
	`{"kind":"Status","code":"410"}`,
	`{"kind":"Status","code":99999999999}`,
	`null`, `[]`, ``,
}

// FuzzParseStatus: ParseStatus never panics; what it accepts is a Status by
// kind or code, and survives a round trip through its JSON unchanged.
func FuzzParseStatus(f *testing.F) {
	for _, s := range statusSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		st, err := ParseStatus(data)
		if err != nil {
			if st != nil {
				t.Fatalf("ParseStatus returned %+v with error %v", st, err)
			}
			return
		}
		if st.Kind != "Status" && st.Code == 0 {
			t.Fatalf("accepted %q as a Status: kind %q, code 0", data, st.Kind)
		}
		if !utf8.Valid(data) {
			return // invalid UTF-8 in a string is kept, and encoded as U+FFFD
		}
		again, err := json.Marshal(st)
		if err != nil {
			t.Fatalf("encode %+v: %v", st, err)
		}
		back, err := ParseStatus(again)
		if err != nil {
			t.Fatalf("its own encoding %s does not parse: %v", again, err)
		}
		// omitempty drops an empty causes list: empty and absent are one.
		if diff := cmp.Diff(st, back, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("round trip (-first +second):\n%s", diff)
		}
	})
}

// FuzzCompareResourceVersions: the order is that of the numbers, errors for
// anything but positive integers without leading zeros, and antisymmetric.
func FuzzCompareResourceVersions(f *testing.F) {
	for _, p := range [][2]string{{"1", "2"}, {"268", "268"}, {"99999999999999999999999", "100000000000000000000000"}, {"", "1"}, {"01", "1"}, {"1a", "1"}, {"+5", "5"}, {"٣", "3"}} {
		f.Add(p[0], p[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		got, err := CompareResourceVersions(a, b)
		back, berr := CompareResourceVersions(b, a)
		if (err == nil) != (berr == nil) || got != -back {
			t.Fatalf("(%q, %q) = %d, %v but (%q, %q) = %d, %v", a, b, got, err, b, a, back, berr)
		}
		x, okA := canonical(a)
		y, okB := canonical(b)
		if err != nil {
			if okA && okB {
				t.Fatalf("(%q, %q): error %v for two valid versions", a, b, err)
			}
			return
		}
		if !okA || !okB {
			t.Fatalf("(%q, %q) = %d, want an error", a, b, got)
		}
		if want := x.Cmp(y); got != want {
			t.Fatalf("(%q, %q) = %d, want %d", a, b, got, want)
		}
	})
}

// canonical parses a positive decimal integer written without sign or leading
// zeros.
func canonical(s string) (*big.Int, bool) {
	n, ok := new(big.Int).SetString(s, 10)
	if !ok || n.Sign() <= 0 || n.String() != s {
		return nil, false
	}
	return n, true
}
