package kubeconfig

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPrecedence(t *testing.T) {
	sep := string(os.PathListSeparator)
	tests := []struct {
		name, env, home string
		want            []string
	}{
		{"unset uses the home file", "", "/home/u", []string{filepath.Join("/home/u", ".kube", "config")}},
		{"unset without home", "", "", nil},
		{"one file", "/a", "/home/u", []string{"/a"}},
		{"order kept, repeats and empties dropped", "/a" + sep + sep + "/b" + sep + "/a" + sep + "/c", "/home/u", []string{"/a", "/b", "/c"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Precedence(tt.env, tt.home)); diff != "" {
				t.Errorf("Precedence(%q, %q) mismatch (-want +got):\n%s", tt.env, tt.home, diff)
			}
		})
	}
}

func TestMerge(t *testing.T) {
	first, second, third := "testdata/merge/first.yaml", "testdata/merge/second.yaml", "testdata/merge/no-current.yaml"
	type result struct {
		CurrentContext string
		Host           string
		Token          string
		Namespace      string
		Clusters       []string
		Files          []string
	}
	tests := []struct {
		name    string
		files   []string
		context string
		want    result
	}{
		{
			name:  "first file wins current-context and shared names",
			files: []string{first, second},
			want: result{CurrentContext: "first", Host: "https://first.example:6443", Token: "token-from-first", Namespace: "default",
				Clusters: []string{"only-first", "only-second", "shared"}, Files: []string{first, second}},
		},
		{
			name:  "reversed order reverses the winner",
			files: []string{second, first},
			want: result{CurrentContext: "second", Host: "https://only-second.example:6443", Token: "token-only-second", Namespace: "second-ns",
				Clusters: []string{"only-first", "only-second", "shared"}, Files: []string{second, first}},
		},
		{
			name:    "a shared context comes whole from the first file",
			files:   []string{first, second},
			context: "shared",
			want: result{CurrentContext: "first", Host: "https://first.example:6443", Token: "token-from-first", Namespace: "from-first",
				Clusters: []string{"only-first", "only-second", "shared"}, Files: []string{first, second}},
		},
		{
			name:  "a file without current-context leaves it to a later one",
			files: []string{third, second},
			want: result{CurrentContext: "second", Host: "https://only-second.example:6443", Token: "token-only-second", Namespace: "second-ns",
				Clusters: []string{"only-second", "only-third", "shared"}, Files: []string{third, second}},
		},
		{
			name:    "--context picks a context from a later file",
			files:   []string{first, second, third},
			context: "third",
			want: result{CurrentContext: "first", Host: "https://only-third.example:6443", Namespace: "default",
				Clusters: []string{"only-first", "only-second", "only-third", "shared"}, Files: []string{first, second, third}},
		},
		{
			name:  "missing files in the list are skipped",
			files: []string{"testdata/merge/does-not-exist.yaml", second},
			want: result{CurrentContext: "second", Host: "https://only-second.example:6443", Token: "token-only-second", Namespace: "second-ns",
				Clusters: []string{"only-second", "shared"}, Files: []string{second}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := Load(Rules{Precedence: tt.files})
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			cc, err := cfg.ClientConfig(Options{Context: tt.context})
			if err != nil {
				t.Fatalf("ClientConfig: %v", err)
			}
			got := result{
				CurrentContext: cfg.CurrentContext, Host: cc.Host, Token: cc.BearerToken, Namespace: cc.Namespace,
				Clusters: sortedKeys(cfg.Clusters), Files: cfg.Files,
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMergeKeepsWholeEntries(t *testing.T) {
	cfg, err := Load(Rules{Precedence: []string{"testdata/merge/first.yaml", "testdata/merge/second.yaml"}})
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	// second.yaml's "shared" cluster sets tls-server-name; the first file's
	// entry wins whole, so none is taken from the second.
	if got := cfg.Clusters["shared"].TLSServerName; got != "" {
		t.Errorf("shared cluster TLSServerName = %q, want empty", got)
	}
	if got, want := cfg.Clusters["shared"].Origin, "testdata/merge/first.yaml"; got != want {
		t.Errorf("shared cluster Origin = %q, want %q", got, want)
	}
}

func TestExplicitPathIsTheOnlyFile(t *testing.T) {
	cfg, err := Load(Rules{ExplicitPath: "testdata/merge/second.yaml", Precedence: []string{"testdata/merge/first.yaml"}})
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if diff := cmp.Diff([]string{"testdata/merge/second.yaml"}, cfg.Files); diff != "" {
		t.Errorf("Files mismatch (-want +got):\n%s", diff)
	}
	if got, want := cfg.CurrentContext, "second"; got != want {
		t.Errorf("CurrentContext = %q, want %q", got, want)
	}
}

func TestRelativePaths(t *testing.T) {
	cfg, err := LoadFile("testdata/relative/config")
	if err != nil {
		t.Fatalf("LoadFile: %v", err)
	}
	dir, err := filepath.Abs("testdata/relative")
	if err != nil {
		t.Fatal(err)
	}
	type paths struct{ CA, Cert, Key, TokenFile, ExecPath, ExecName string }
	want := paths{
		CA:        filepath.Join(dir, "certs", "ca.crt"),
		Cert:      filepath.Join(dir, "certs", "client.crt"),
		Key:       filepath.Join(dir, "certs", "client.key"),
		TokenFile: filepath.Join(dir, "token"),
		ExecPath:  filepath.Join(dir, "bin", "get-token"),
		ExecName:  "kubelogin",
	}
	got := paths{
		CA:        cfg.Clusters["files"].CertificateAuthority,
		Cert:      cfg.Users["files"].ClientCertificate,
		Key:       cfg.Users["files"].ClientKey,
		TokenFile: cfg.Users["token-file"].TokenFile,
		ExecPath:  cfg.Users["plugin-path"].Exec.Command,
		ExecName:  cfg.Users["plugin-name"].Exec.Command,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("resolved paths mismatch (-want +got):\n%s", diff)
	}
	cc, err := cfg.ClientConfig(Options{})
	if err != nil {
		t.Fatalf("ClientConfig: %v", err)
	}
	if cc.TLS.CAFile != want.CA || cc.TLS.CertFile != want.Cert || cc.TLS.KeyFile != want.Key {
		t.Errorf("TLS = %v, want CA %s, cert %s, key %s", cc.TLS, want.CA, want.Cert, want.Key)
	}
}

// TestBrokenFiles checks the exact error each broken kubeconfig gives, and
// that it is the type a caller branches on.
func TestBrokenFiles(t *testing.T) {
	tests := []struct {
		name    string
		rules   Rules
		context string
		want    string
		check   func(error) bool
	}{
		{
			name:  "missing explicit file",
			rules: Rules{ExplicitPath: "testdata/broken/nope.yaml"},
			want:  "kubeconfig testdata/broken/nope.yaml: no such file or directory",
			check: func(err error) bool { var fe *FileError; return errors.As(err, &fe) && errors.Is(err, fs.ErrNotExist) },
		},
		{
			name:  "a directory",
			rules: Rules{ExplicitPath: "testdata/broken"},
			want:  "kubeconfig testdata/broken: is a directory",
			check: isFileError,
		},
		{
			name:  "bad YAML names the line",
			rules: Rules{Precedence: []string{"testdata/merge/first.yaml", "testdata/broken/bad-yaml.yaml"}},
			want:  "kubeconfig testdata/broken/bad-yaml.yaml: invalid YAML: yaml: line 4: mapping values are not allowed in this context",
			check: isFileError,
		},
		{
			name:  "not a mapping",
			rules: Rules{ExplicitPath: "testdata/broken/scalar.yaml"},
			want:  "kubeconfig testdata/broken/scalar.yaml: the file is a YAML string, want a mapping (a kubeconfig document)",
			check: isFileError,
		},
		{
			name:  "value of the wrong type names the key",
			rules: Rules{ExplicitPath: "testdata/broken/wrong-type.yaml"},
			want:  "kubeconfig testdata/broken/wrong-type.yaml: clusters.cluster.server: a YAML list cannot be a string",
			check: isFileError,
		},
		{
			name:  "another kind",
			rules: Rules{ExplicitPath: "testdata/broken/wrong-kind.yaml"},
			want:  `kubeconfig testdata/broken/wrong-kind.yaml: kind is "Pod", want Config`,
			check: isFileError,
		},
		{
			name:  "bad base64",
			rules: Rules{ExplicitPath: "testdata/broken/bad-base64.yaml"},
			want:  "kubeconfig testdata/broken/bad-base64.yaml: a *-data value is not valid base64: illegal base64 data at input byte 3",
			check: isFileError,
		},
		{
			name:  "a name twice in one file",
			rules: Rules{ExplicitPath: "testdata/broken/duplicate.yaml"},
			want:  `kubeconfig testdata/broken/duplicate.yaml: clusters: name "a" appears twice`,
			check: isFileError,
		},
		{
			name:  "current-context names nothing",
			rules: Rules{ExplicitPath: "testdata/broken/unknown-context.yaml"},
			want:  `kubeconfig: context "nowhere" is not defined in testdata/broken/unknown-context.yaml`,
			check: isNotFound("context", "nowhere"),
		},
		{
			name:    "--context names nothing",
			rules:   Rules{Precedence: []string{"testdata/merge/first.yaml", "testdata/merge/second.yaml"}},
			context: "staging",
			want:    `kubeconfig: context "staging" is not defined in testdata/merge/first.yaml, testdata/merge/second.yaml`,
			check:   isNotFound("context", "staging"),
		},
		{
			name:  "context with a missing cluster",
			rules: Rules{ExplicitPath: "testdata/broken/missing-refs.yaml"},
			want:  `kubeconfig: cluster "gone" (named by context "no-cluster") is not defined in testdata/broken/missing-refs.yaml`,
			check: isNotFound("cluster", "gone"),
		},
		{
			name:    "context with a missing user",
			rules:   Rules{ExplicitPath: "testdata/broken/missing-refs.yaml"},
			context: "no-user",
			want:    `kubeconfig: user "ghost" (named by context "no-user") is not defined in testdata/broken/missing-refs.yaml`,
			check:   isNotFound("user", "ghost"),
		},
		{
			name:  "auth-provider",
			rules: Rules{ExplicitPath: "testdata/broken/auth-provider.yaml"},
			want: `kubeconfig testdata/broken/auth-provider.yaml: user "gke-user" uses auth-provider "gcp", which Kubernetes clients no longer support; ` +
				`configure an exec credential plugin instead (for example gke-gcloud-auth-plugin for GKE, kubelogin for Azure or OIDC)`,
			check: func(err error) bool {
				var ae *AuthProviderError
				return errors.As(err, &ae) && ae.User == "gke-user" && ae.Provider == "gcp"
			},
		},
		{
			name:  "no file at all",
			rules: Rules{Precedence: []string{"testdata/broken/nope.yaml"}},
			want:  ErrEmptyConfig.Error(),
			check: func(err error) bool { return errors.Is(err, ErrEmptyConfig) },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cc, err := New(tt.rules, Options{Context: tt.context})
			if err == nil {
				t.Fatalf("New succeeded with %v, want error %q", cc, tt.want)
			}
			if got := err.Error(); got != tt.want {
				t.Errorf("error:\n got %s\nwant %s", got, tt.want)
			}
			if !tt.check(err) {
				t.Errorf("error %v (%T) is not of the expected type", err, err)
			}
		})
	}
}

func isFileError(err error) bool {
	var fe *FileError
	return errors.As(err, &fe)
}

func isNotFound(kind, name string) func(error) bool {
	return func(err error) bool {
		var nf *NotFoundError
		return errors.As(err, &nf) && nf.Kind == kind && nf.Name == name
	}
}

func sortedKeys[T any](m map[string]T) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
