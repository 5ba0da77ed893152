package cluster

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
)

// BinDirEnv names the environment variable that overrides the default
// binary folder; the make fragment mk/cluster.mk exports it so that the
// tests use the folder `make cluster-bins` filled.
const BinDirEnv = "PODWATCH_CLUSTER_BIN_DIR"

// mainModule is the main module's path, used to recognise the repository
// root when the source path is not available (a binary built with -trimpath).
const mainModule = "github.com/podwatch/podwatch"

// binary describes one program built from a nested module.
type binary struct {
	name   string // file name in the bin folder
	module string // nested module folder, relative to the repository root
	pkg    string // main package to build
	flags  []string
}

// The binaries' names in the bin folder.
const (
	Etcd          = "etcd"
	KubeAPIServer = "kube-apiserver"
	// Kubectl is kubectl at the cluster's version; KubectlOld an older
	// release, whose discovery and watch requests differ from today's.
	Kubectl    = "kubectl"
	KubectlOld = "kubectl-1.32"
)

// ClusterBinaries are what Start runs; EnsureBinaries builds these.
var ClusterBinaries = []string{Etcd, KubeAPIServer}

var binaries = []binary{
	{name: Etcd, module: "internal/cluster/build/etcd", pkg: "go.etcd.io/etcd/server/v3"},
	{name: KubeAPIServer, module: "internal/cluster/build/apiserver", pkg: "k8s.io/kubernetes/cmd/kube-apiserver", flags: []string{
		// Built from the module proxy there is no git tree to stamp the
		// version from; without these /version says v0.0.0-master.
		"-ldflags=" + versionLDFlags("v1.37.2", "1", "37"),
	}},
	// kubectl, an outside client that judges podwatch's servers; the
	// version stamp also sets the User-Agent it sends.
	{name: Kubectl, module: "internal/cluster/build/kubectl", pkg: "k8s.io/kubernetes/cmd/kubectl", flags: []string{
		"-ldflags=" + versionLDFlags("v1.37.2", "1", "37"),
	}},
	{name: KubectlOld, module: "internal/cluster/build/kubectl132", pkg: "k8s.io/kubernetes/cmd/kubectl", flags: []string{
		"-ldflags=" + versionLDFlags("v1.32.13", "1", "32"),
	}},
}

// BinaryNames lists every binary the package can build, the cluster's first.
func BinaryNames() []string {
	names := make([]string, len(binaries))
	for i, b := range binaries {
		names[i] = b.name
	}
	return names
}

func versionLDFlags(version, major, minor string) string {
	var fl []string
	for _, pkg := range []string{"k8s.io/component-base/version", "k8s.io/client-go/pkg/version"} {
		fl = append(fl,
			"-X", pkg+".gitVersion="+version,
			"-X", pkg+".gitMajor="+major,
			"-X", pkg+".gitMinor="+minor,
			"-X", pkg+".gitTreeState=clean",
		)
	}
	return strings.Join(fl, " ")
}

// BuildError reports that a binary could not be built. Output holds the
// tail of the go command's output, which usually names the cause.
type BuildError struct {
	Binary string // one of BinaryNames
	Dir    string // nested module folder the build ran in
	Err    error
	Output string
}

func (e *BuildError) Error() string {
	return fmt.Sprintf("cluster: build %s in %s: %v\n%s", e.Binary, e.Dir, e.Err, e.Output)
}

func (e *BuildError) Unwrap() error { return e.Err }

// DefaultBinDir returns the folder the binaries are built into when
// Options.BinDir is empty: $PODWATCH_CLUSTER_BIN_DIR if set, else
// <repo>/.cache/bin.
func DefaultBinDir() (string, error) {
	if d := os.Getenv(BinDirEnv); d != "" {
		return filepath.Abs(d)
	}
	root, err := repoRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, ".cache", "bin"), nil
}

// repoRoot finds the repository root: first from this file's source path
// (right for tests and go run), else by walking up from the working folder
// to the main module's go.mod.
func repoRoot() (string, error) {
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		root := filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
		if isMainModule(root) {
			return root, nil
		}
	}
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("cluster: find repository root: %w", err)
	}
	for {
		if isMainModule(dir) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("cluster: find repository root: no go.mod for %s above the working folder", mainModule)
		}
		dir = parent
	}
}

func isMainModule(dir string) bool {
	b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return false
	}
	first, _, _ := bytes.Cut(b, []byte("\n"))
	return strings.TrimSpace(string(first)) == "module "+mainModule
}

// EnsureBinaries builds etcd and kube-apiserver into binDir (DefaultBinDir
// when empty) unless each is already there with a stamp matching its nested
// module's go.mod and go.sum. It blocks for the whole build: minutes for a
// cold kube-apiserver build, well under a second when nothing is to do.
// Concurrent callers, in this or other processes, take turns on a lock file
// in binDir, so a cold build happens once. A failed build returns a
// *BuildError; cancelling ctx kills the go command.
func EnsureBinaries(ctx context.Context, binDir string) error {
	return Ensure(ctx, binDir, ClusterBinaries...)
}

// Ensure is EnsureBinaries for the named binaries (see BinaryNames), in the
// order given; an unknown name is an error before anything is built.
func Ensure(ctx context.Context, binDir string, names ...string) error {
	var want []binary
	for _, n := range names {
		i := slices.IndexFunc(binaries, func(b binary) bool { return b.name == n })
		if i < 0 {
			return fmt.Errorf("cluster: no binary named %q (known: %s)", n, strings.Join(BinaryNames(), ", "))
		}
		want = append(want, binaries[i])
	}
	if binDir == "" {
		d, err := DefaultBinDir()
		if err != nil {
			return err
		}
		binDir = d
	}
	root, err := repoRoot()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(binDir, 0o755); err != nil {
		return fmt.Errorf("cluster: make bin folder: %w", err)
	}
	unlock, err := lockFile(filepath.Join(binDir, ".build.lock"))
	if err != nil {
		return fmt.Errorf("cluster: lock bin folder: %w", err)
	}
	defer unlock()
	for _, b := range want {
		if err := ensureBinary(ctx, root, binDir, b); err != nil {
			return err
		}
	}
	return nil
}

func ensureBinary(ctx context.Context, root, binDir string, b binary) error {
	modDir := filepath.Join(root, filepath.FromSlash(b.module))
	stamp, err := moduleStamp(modDir, b)
	if err != nil {
		return err
	}
	out := filepath.Join(binDir, b.name)
	stampFile := out + ".stamp"
	if have, err := os.ReadFile(stampFile); err == nil && string(have) == stamp {
		if _, err := os.Stat(out); err == nil {
			return nil
		}
	}
	// Build beside the target and rename, so a cancelled or failed build
	// never leaves a half-written binary that a later run would trust.
	tmp := out + ".tmp"
	if err := goBuild(ctx, modDir, tmp, b); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, out); err != nil {
		return fmt.Errorf("cluster: install %s: %w", b.name, err)
	}
	if err := os.WriteFile(stampFile, []byte(stamp), 0o644); err != nil {
		return fmt.Errorf("cluster: write %s stamp: %w", b.name, err)
	}
	return nil
}

// moduleStamp hashes the nested module's go.mod and go.sum, which pin
// every version that goes into the binary, and the build flags.
func moduleStamp(modDir string, b binary) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "%s %q\n", b.pkg, b.flags)
	for _, name := range []string{"go.mod", "go.sum"} {
		b, err := os.ReadFile(filepath.Join(modDir, name))
		if err != nil {
			return "", fmt.Errorf("cluster: stamp nested module: %w", err)
		}
		fmt.Fprintf(h, "%s %d\n", name, len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func goBuild(ctx context.Context, modDir, out string, b binary) error {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		if p := filepath.Join(runtime.GOROOT(), "bin", "go"); fileExists(p) {
			goCmd = p
		} else {
			return &BuildError{Binary: b.name, Dir: modDir, Err: err}
		}
	}
	// -mod=readonly makes a go.sum that lacks an entry fail loudly instead
	// of quietly needing a look-up the committed files do not pin.
	args := append([]string{"build", "-mod=readonly", "-o", out}, b.flags...)
	cmd := exec.CommandContext(ctx, goCmd, append(args, b.pkg)...)
	cmd.Dir = modDir
	// GOWORK=off keeps a go.work elsewhere from pulling in the main module.
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN=local", "GOWORK=off")
	var output tailBuffer
	output.max = 8 << 10
	cmd.Stdout = &output
	cmd.Stderr = &output
	if err := cmd.Run(); err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			err = errors.Join(ctxErr, err)
		}
		return &BuildError{Binary: b.name, Dir: modDir, Err: err, Output: output.String()}
	}
	return nil
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
