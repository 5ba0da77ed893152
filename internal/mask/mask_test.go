package mask

import "testing"

func TestHeader(t *testing.T) {
	for _, tt := range []struct{ name, value, want string }{
		{"Authorization", "Bearer abc.def", "Bearer <masked>"},
		{"authorization", "Basic dXNlcjpwYXNz", "Basic <masked>"},
		{"Proxy-Authorization", "opaque", "<masked>"},
		{"Cookie", "session=abc", "<masked>"},
		{"set-cookie", "session=abc; Path=/", "<masked>"},
		{"Accept", "application/json", "application/json"},
		{"Impersonate-User", "jane", "jane"},
	} {
		if got := Header(tt.name, tt.value); got != tt.want {
			t.Errorf("Header(%q, %q) = %q, want %q", tt.name, tt.value, got, tt.want)
		}
	}
}

func TestQuery(t *testing.T) {
	for _, tt := range []struct{ raw, want string }{
		{"watch=true&resourceVersion=5", "watch=true&resourceVersion=5"},
		{"access_token=abc&watch=1", "access_token=<masked>&watch=1"},
		{"a=1&Token=x&token=y", "a=1&Token=<masked>&token=<masked>"},
		{"pass%77ord=hunter2", "pass%77ord=<masked>"},
		{"password", "password=<masked>"},
		{"", ""},
	} {
		if got := Query(tt.raw); got != tt.want {
			t.Errorf("Query(%q) = %q, want %q", tt.raw, got, tt.want)
		}
	}
}

func TestSecretFlagAndURL(t *testing.T) {
	for name, want := range map[string]bool{"token": true, "bearer-token-file": true, "PASSWORD": true, "client-secret": true, "server": false, "node": false} {
		if got := SecretFlag(name); got != want {
			t.Errorf("SecretFlag(%q) = %t, want %t", name, got, want)
		}
	}
	for in, want := range map[string]string{
		"https://u:p@host:6443": "https://u:xxxxx@host:6443",
		"https://host:6443":     "https://host:6443",
		"node-a@site":           "node-a@site",
	} {
		if got := URL(in); got != want {
			t.Errorf("URL(%q) = %q, want %q", in, got, want)
		}
	}
}
