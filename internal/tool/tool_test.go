package tool

import (
	"bytes"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		name       string
		args       []string
		wantStatus int
		wantOK     bool
		wantN      int    // when ok
		wantOutput string // in what the flag set reported; "" for nothing
	}{
		{"flags", []string{"-n", "3"}, ExitOK, true, 3, ""},
		{"no flags", nil, ExitOK, true, 1, ""},
		{"help", []string{"-help"}, ExitOK, false, 1, "Usage of demo"},
		{"unknown flag", []string{"-m", "3"}, ExitUsage, false, 1, "flag provided but not defined: -m"},
		{"bad value", []string{"-n", "three"}, ExitUsage, false, 1, `invalid value "three"`},
		{"stray argument", []string{"-n", "3", "extra"}, ExitUsage, false, 3, `demo: unexpected argument "extra"`},
	} {
		var out bytes.Buffer
		fs := NewFlagSet("demo", &out)
		n := fs.Int("n", 1, "a number")
		status, ok := Parse(fs, tc.args)
		if status != tc.wantStatus || ok != tc.wantOK || (ok && *n != tc.wantN) {
			t.Errorf("%s: got status %d ok %v n %d, want %d %v %d", tc.name, status, ok, *n, tc.wantStatus, tc.wantOK, tc.wantN)
		}
		if got := out.String(); (tc.wantOutput == "") != (got == "") || !strings.Contains(got, tc.wantOutput) {
			t.Errorf("%s: reported %q, want it to hold %q", tc.name, got, tc.wantOutput)
		}
	}
}
