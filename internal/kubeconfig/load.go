package kubeconfig

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"sigs.k8s.io/yaml"
)

// maxFileSize bounds what is read of one kubeconfig file; real ones are a few
// kilobytes, and a runaway file must not take the process's memory.
const maxFileSize = 16 << 20

// Rules say where kubeconfig files come from.
type Rules struct {
	// ExplicitPath (kubectl's --kubeconfig) is then the only file read, and it
	// must exist.
	ExplicitPath string
	// Precedence lists the files to merge when ExplicitPath is empty, first
	// wins; missing files are skipped.
	Precedence []string
	// InCluster, when set, is used by New when no file defines anything and no
	// server was given: the pod's service account, as kubectl falls back to.
	InCluster *InClusterOptions
}

// DefaultRules are kubectl's: explicit (from --kubeconfig) if not empty, else
// the files in $KUBECONFIG, else ~/.kube/config, with the in-cluster fallback.
func DefaultRules(explicit string) Rules {
	home, _ := os.UserHomeDir()
	return Rules{
		ExplicitPath: explicit,
		Precedence:   Precedence(os.Getenv("KUBECONFIG"), home),
		InCluster:    &InClusterOptions{},
	}
}

// Precedence returns the files to read for a KUBECONFIG value: its entries
// split by os.PathListSeparator, empty and repeated ones dropped; or, when it
// is empty, home/.kube/config (nothing when home is empty too).
func Precedence(kubeconfigEnv, home string) []string {
	if kubeconfigEnv == "" {
		if home == "" {
			return nil
		}
		return []string{filepath.Join(home, ".kube", "config")}
	}
	var out []string
	seen := map[string]bool{}
	for _, p := range filepath.SplitList(kubeconfigEnv) {
		if p == "" || seen[p] {
			continue
		}
		seen[p] = true
		out = append(out, p)
	}
	return out
}

// Load reads and merges the files the rules name. A missing ExplicitPath, an
// unreadable file (other than a missing Precedence entry) or a file that does
// not parse is a *FileError. When no file exists the Config is empty, not an
// error: ClientConfig then returns ErrEmptyConfig unless a server is given.
func Load(rules Rules) (*Config, error) {
	paths := rules.Precedence
	mustExist := false
	if rules.ExplicitPath != "" {
		paths, mustExist = []string{rules.ExplicitPath}, true
	}
	merged := &Config{
		Clusters: map[string]*Cluster{},
		Users:    map[string]*User{},
		Contexts: map[string]*Context{},
	}
	for _, p := range paths {
		c, err := LoadFile(p)
		if err != nil {
			if !mustExist && errors.Is(err, fs.ErrNotExist) {
				continue
			}
			return nil, err
		}
		merge(merged, c)
	}
	return merged, nil
}

// merge adds src under dst with kubectl's precedence: an entry whose name dst
// already has is dropped whole (not merged field by field), and current-context
// is taken only if dst has none yet.
func merge(dst, src *Config) {
	if dst.CurrentContext == "" {
		dst.CurrentContext = src.CurrentContext
	}
	for k, v := range src.Clusters {
		if _, ok := dst.Clusters[k]; !ok {
			dst.Clusters[k] = v
		}
	}
	for k, v := range src.Users {
		if _, ok := dst.Users[k]; !ok {
			dst.Users[k] = v
		}
	}
	for k, v := range src.Contexts {
		if _, ok := dst.Contexts[k]; !ok {
			dst.Contexts[k] = v
		}
	}
	dst.Files = append(dst.Files, src.Files...)
}

// LoadFile reads one kubeconfig file. Errors are *FileError naming path.
func LoadFile(path string) (*Config, error) {
	data, err := readLimited(path)
	if err != nil {
		return nil, &FileError{Path: path, Err: err}
	}
	return Parse(data, path)
}

func readLimited(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, unwrapPathError(err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxFileSize+1))
	if err != nil {
		return nil, unwrapPathError(err)
	}
	if len(data) > maxFileSize {
		return nil, fmt.Errorf("larger than %d bytes", maxFileSize)
	}
	return data, nil
}

// unwrapPathError drops the *fs.PathError layer, whose message repeats the
// path that FileError already names; errors.Is still sees the cause.
func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Parse decodes one kubeconfig file's content. path names it in errors and is
// the base for its relative paths (left relative when path is empty). Errors
// are *FileError; a YAML syntax error carries the parser's line number.
func Parse(data []byte, path string) (*Config, error) {
	fc, err := decodeFile(data)
	if err != nil {
		return nil, &FileError{Path: path, Err: err}
	}
	base := ""
	if path != "" {
		abs, err := filepath.Abs(filepath.Dir(path))
		if err != nil {
			return nil, &FileError{Path: path, Err: err}
		}
		base = abs
	}
	c := &Config{
		CurrentContext: fc.CurrentContext,
		Clusters:       make(map[string]*Cluster, len(fc.Clusters)),
		Users:          make(map[string]*User, len(fc.Users)),
		Contexts:       make(map[string]*Context, len(fc.Contexts)),
		Files:          []string{path},
	}
	for _, nc := range fc.Clusters {
		if err := checkName("clusters", nc.Name, c.Clusters); err != nil {
			return nil, &FileError{Path: path, Err: err}
		}
		cl := nc.Cluster
		cl.Origin = path
		cl.CertificateAuthority = resolve(base, cl.CertificateAuthority)
		c.Clusters[nc.Name] = &cl
	}
	for _, nu := range fc.Users {
		if err := checkName("users", nu.Name, c.Users); err != nil {
			return nil, &FileError{Path: path, Err: err}
		}
		u := nu.User
		u.Origin = path
		u.ClientCertificate = resolve(base, u.ClientCertificate)
		u.ClientKey = resolve(base, u.ClientKey)
		u.TokenFile = resolve(base, u.TokenFile)
		if u.Exec != nil {
			e := *u.Exec
			// A bare command name is looked up in PATH, as a shell would;
			// only a command with a separator is a path relative to the file.
			if strings.ContainsRune(e.Command, filepath.Separator) {
				e.Command = resolve(base, e.Command)
			}
			u.Exec = &e
		}
		c.Users[nu.Name] = &u
	}
	for _, nx := range fc.Contexts {
		if err := checkName("contexts", nx.Name, c.Contexts); err != nil {
			return nil, &FileError{Path: path, Err: err}
		}
		x := nx.Context
		x.Origin = path
		c.Contexts[nx.Name] = &x
	}
	return c, nil
}

func decodeFile(data []byte) (*fileConfig, error) {
	var fc fileConfig
	if len(bytes.TrimSpace(data)) == 0 {
		return &fc, nil
	}
	js, err := yaml.YAMLToJSON(data)
	if err != nil {
		return nil, fmt.Errorf("invalid YAML: %w", err)
	}
	if err := json.Unmarshal(js, &fc); err != nil {
		return nil, describeJSONError(err)
	}
	if fc.Kind != "" && fc.Kind != "Config" {
		return nil, fmt.Errorf("kind is %q, want Config", fc.Kind)
	}
	if fc.APIVersion != "" && fc.APIVersion != "v1" {
		return nil, fmt.Errorf("apiVersion is %q, want v1", fc.APIVersion)
	}
	return &fc, nil
}

// describeJSONError says which key holds a value of the wrong type. The JSON
// here is converted from YAML, so a byte offset into it would mean nothing to
// the user; and the value itself could be a credential, so it is not quoted.
func describeJSONError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := te.Field
		if field == "" {
			return fmt.Errorf("the file is a YAML %s, want a mapping (a kubeconfig document)", te.Value)
		}
		return fmt.Errorf("%s: a YAML %s cannot be a %s", field, jsonKind(te.Value), te.Type)
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return errors.New("not a kubeconfig document")
	}
	var be base64.CorruptInputError
	if errors.As(err, &be) {
		return fmt.Errorf("a *-data value is not valid base64: %w", err)
	}
	return err
}

// jsonKind turns UnmarshalTypeError.Value ("number 5", "string") into a kind
// without the value.
func jsonKind(v string) string {
	kind, _, _ := strings.Cut(v, " ")
	switch kind {
	case "object":
		return "mapping"
	case "array":
		return "list"
	}
	return kind
}

func checkName[T any](list, name string, seen map[string]*T) error {
	if name == "" {
		return fmt.Errorf("%s: an entry has no name", list)
	}
	if _, ok := seen[name]; ok {
		return fmt.Errorf("%s: name %q appears twice", list, name)
	}
	return nil
}

func resolve(base, p string) string {
	if p == "" || base == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(base, p)
}
