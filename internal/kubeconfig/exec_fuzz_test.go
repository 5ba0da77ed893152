package kubeconfig

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// FuzzExecCredential feeds arbitrary plugin output to the ExecCredential
// parser: it either yields a credential (a token, or a usable key pair) or an
// *ExecError whose message never holds the token or key the output carried.
func FuzzExecCredential(f *testing.F) {
	const v1 = "client.authentication.k8s.io/v1"
	for _, s := range []string{
		`{"apiVersion":"` + v1 + `","kind":"ExecCredential","status":{"token":"s3cr3t-t0ken-abcdef","expirationTimestamp":"2030-01-02T03:04:05Z"}}`,
		`{"apiVersion":"` + v1 + `","kind":"ExecCredential","status":{"clientCertificateData":"-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n","clientKeyData":"-----BEGIN EC PRIVATE KEY-----\nsecretkeybytes\n-----END EC PRIVATE KEY-----\n"}}`,
		`{"apiVersion":"` + v1 + `","kind":"ExecCredential","status":{"clientKeyData":"only-a-key-s3cr3t"}}`,
		`{"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","status":{"token":"t0ken-for-old-api"}}`,
		`{"apiVersion":"` + v1 + `","kind":"ExecCredential"}`,
		`{"apiVersion":"` + v1 + `","kind":"ExecCredential","status":{"expirationTimestamp":"tomorrow","token":"s3cr3t-t0ken"}}`,
		`token: s3cr3t`, ``, `null`,
	} {
		f.Add([]byte(s))
	}
	e := newExecCredentials("fuzz-user", ExecConfig{Command: "plugin", APIVersion: v1}, nil, ExecIO{})
	f.Fuzz(func(t *testing.T, out []byte) {
		c, err := e.parse(out)
		if err == nil {
			if c == nil || (c.token == "" && c.cert == nil) {
				t.Fatalf("parse(%q) = %+v, nil: want a token or a certificate", out, c)
			}
			return
		}
		var xe *ExecError
		if !errors.As(err, &xe) {
			t.Fatalf("parse error %v is %T, want *ExecError", err, err)
		}
		var ec execCredential
		if json.Unmarshal(out, &ec) != nil || ec.Status == nil {
			return
		}
		msg := err.Error()
		for _, secret := range []string{ec.Status.Token, ec.Status.ClientKeyData} {
			// What the message quotes on purpose (apiVersion, kind) may
			// happen to hold the secret; anything else must not.
			if len(secret) >= 6 && strings.Contains(msg, secret) &&
				!strings.Contains(ec.APIVersion, secret) && !strings.Contains(ec.Kind, secret) {
				t.Fatalf("error %q quotes a credential of the output", msg)
			}
		}
	})
}

// FuzzParseTimeout: --request-timeout is a duration or a number of seconds,
// never negative, and anything else is a *ConfigError; never a panic.
func FuzzParseTimeout(f *testing.F) {
	for _, s := range []string{"", "0", "30", "30s", "1m30s", "-1", "-5s", "9223372036854775807", "1.5h", "10 s", "0x10"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseTimeout(s)
		if err != nil {
			var ce *ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("ParseTimeout(%q) error %v is %T, want *ConfigError", s, err, err)
			}
			return
		}
		if d < 0 {
			t.Fatalf("ParseTimeout(%q) = %v, negative", s, d)
		}
	})
}
