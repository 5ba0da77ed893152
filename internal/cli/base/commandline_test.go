package base

import (
	"testing"
)

// TestCommandLineMasksCredentials: the command line a page records keeps
// no token, password or secret, in either flag form, nor a URL's password.
func TestCommandLineMasksCredentials(t *testing.T) {
	c := NewCommand("watch", "")
	c.args = []string{"--token", "s3cret", "-token=s3cret", "--server", "https://admin:pa55@10.0.0.1:6443", "--context", "a b", "--node=n1"}
	got := commandLine(c)
	want := "podwatch watch --token '<masked>' '-token=<masked>' --server https://admin:xxxxx@10.0.0.1:6443 --context 'a b' --node=n1"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
