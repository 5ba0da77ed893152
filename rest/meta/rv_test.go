package meta

import "testing"

func TestCompareResourceVersions(t *testing.T) {
	for _, tc := range []struct {
		a, b    string
		want    int
		wantErr bool
	}{
		{"1", "2", -1, false},
		{"10", "9", 1, false},
		{"268", "268", 0, false},
		{"99999999999999999999999", "100000000000000000000000", -1, false},
		{"", "1", 0, true},
		{"0", "1", 0, true},
		{"01", "1", 0, true},
		{"1a", "1", 0, true},
		{"5", "-5", 0, true},
	} {
		got, err := CompareResourceVersions(tc.a, tc.b)
		if (err != nil) != tc.wantErr || got != tc.want {
			t.Errorf("CompareResourceVersions(%q, %q) = %d, %v; want %d, error %v", tc.a, tc.b, got, err, tc.want, tc.wantErr)
		}
	}
}
