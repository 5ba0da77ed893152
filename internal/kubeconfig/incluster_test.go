package kubeconfig

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func serviceAccountDir(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestInCluster(t *testing.T) {
	full := map[string]string{"token": "sa-token\n", "ca.crt": "ca", "namespace": "kube-system\n"}
	tests := []struct {
		name  string
		env   map[string]string
		files map[string]string
		o     Options
		want  view
	}{
		{
			name:  "IPv4",
			env:   map[string]string{"KUBERNETES_SERVICE_HOST": "10.96.0.1", "KUBERNETES_SERVICE_PORT": "443"},
			files: full,
			want:  view{Host: "https://10.96.0.1:443", Namespace: "kube-system"},
		},
		{
			name:  "IPv6 is bracketed",
			env:   map[string]string{"KUBERNETES_SERVICE_HOST": "fd00:10:96::1", "KUBERNETES_SERVICE_PORT": "6443"},
			files: full,
			want:  view{Host: "https://[fd00:10:96::1]:6443", Namespace: "kube-system"},
		},
		{
			name:  "no namespace file",
			env:   map[string]string{"KUBERNETES_SERVICE_HOST": "10.96.0.1", "KUBERNETES_SERVICE_PORT": "443"},
			files: map[string]string{"token": "sa-token", "ca.crt": "ca"},
			want:  view{Host: "https://10.96.0.1:443", Namespace: "default"},
		},
		{
			name:  "flags apply",
			env:   map[string]string{"KUBERNETES_SERVICE_HOST": "10.96.0.1", "KUBERNETES_SERVICE_PORT": "443"},
			files: full,
			o:     Options{Namespace: "other", Impersonate: "sa-admin"},
			want:  view{Host: "https://10.96.0.1:443", Namespace: "other", Impersonate: Impersonation{UserName: "sa-admin"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := serviceAccountDir(t, tt.files)
			cfg, err := InCluster(InClusterOptions{Dir: dir, Getenv: envOf(tt.env)})
			if err != nil {
				t.Fatalf("InCluster: %v", err)
			}
			cc, err := cfg.ClientConfig(tt.o)
			if err != nil {
				t.Fatalf("ClientConfig: %v", err)
			}
			// The token is a file, so the client re-reads it as the kubelet
			// rotates it.
			tt.want.BearerTokenFile = filepath.Join(dir, "token")
			tt.want.CAFile = filepath.Join(dir, "ca.crt")
			if diff := cmp.Diff(tt.want, viewOf(cc)); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestInClusterErrors(t *testing.T) {
	env := map[string]string{"KUBERNETES_SERVICE_HOST": "10.96.0.1", "KUBERNETES_SERVICE_PORT": "443"}
	tests := []struct {
		name  string
		env   map[string]string
		files map[string]string
		want  func(dir string) string
		check func(error) bool
	}{
		{
			name:  "not in a pod",
			env:   map[string]string{"KUBERNETES_SERVICE_HOST": "10.96.0.1"},
			files: map[string]string{"token": "t", "ca.crt": "ca"},
			want:  func(string) string { return ErrNotInCluster.Error() },
			check: func(err error) bool { return errors.Is(err, ErrNotInCluster) },
		},
		{
			name:  "no token",
			env:   env,
			files: map[string]string{"ca.crt": "ca"},
			want: func(dir string) string {
				return "kubeconfig " + filepath.Join(dir, "token") + ": no such file or directory"
			},
			check: func(err error) bool { return errors.Is(err, fs.ErrNotExist) && isFileError(err) },
		},
		{
			name:  "empty token",
			env:   env,
			files: map[string]string{"token": "\n", "ca.crt": "ca"},
			want: func(dir string) string {
				return "kubeconfig " + filepath.Join(dir, "token") + ": the service account token is empty"
			},
			check: isFileError,
		},
		{
			name:  "no CA",
			env:   env,
			files: map[string]string{"token": "t"},
			want: func(dir string) string {
				return "kubeconfig " + filepath.Join(dir, "ca.crt") + ": no such file or directory"
			},
			check: isFileError,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := serviceAccountDir(t, tt.files)
			cfg, err := InCluster(InClusterOptions{Dir: dir, Getenv: envOf(tt.env)})
			if err == nil {
				t.Fatalf("InCluster succeeded with %v, want an error", cfg)
			}
			if got, want := err.Error(), tt.want(dir); got != want {
				t.Errorf("error:\n got %s\nwant %s", got, want)
			}
			if !tt.check(err) {
				t.Errorf("error %v (%T) is not of the expected type", err, err)
			}
		})
	}
}

func TestNewFallsBackToInCluster(t *testing.T) {
	dir := serviceAccountDir(t, map[string]string{"token": "t", "ca.crt": "ca", "namespace": "ns"})
	env := envOf(map[string]string{"KUBERNETES_SERVICE_HOST": "10.0.0.1", "KUBERNETES_SERVICE_PORT": "443"})
	noFile := []string{filepath.Join(dir, "no-kubeconfig")}
	tests := []struct {
		name    string
		rules   Rules
		o       Options
		want    string // Host; "" for ErrEmptyConfig
		wantErr error
	}{
		{"no kubeconfig in a pod", Rules{Precedence: noFile, InCluster: &InClusterOptions{Dir: dir, Getenv: env}}, Options{}, "https://10.0.0.1:443", nil},
		{"no kubeconfig outside a pod", Rules{Precedence: noFile, InCluster: &InClusterOptions{Dir: dir, Getenv: envOf(nil)}}, Options{}, "", ErrEmptyConfig},
		{"fallback off", Rules{Precedence: noFile}, Options{}, "", ErrEmptyConfig},
		{"a kubeconfig wins", Rules{Precedence: []string{"testdata/merge/first.yaml"}, InCluster: &InClusterOptions{Dir: dir, Getenv: env}}, Options{}, "https://first.example:6443", nil},
		{"--server wins", Rules{Precedence: noFile, InCluster: &InClusterOptions{Dir: dir, Getenv: env}}, Options{Server: "https://flag.example"}, "https://flag.example", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cc, err := New(tt.rules, tt.o)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("New error = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			if cc.Host != tt.want {
				t.Errorf("Host = %q, want %q", cc.Host, tt.want)
			}
		})
	}
}
