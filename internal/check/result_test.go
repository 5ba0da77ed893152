package check

import "testing"

// A check that depends on another tells that one's verdict as English
// ("which failed"), never as the verdict's word ("which was fail").
func TestResultPast(t *testing.T) {
	for r, want := range map[Result]string{Pass: "passed", Fail: "failed", NotApplicable: "did not apply"} {
		if got := r.past(); got != want {
			t.Errorf("%s: got %q, want %q", r, got, want)
		}
	}
}
