package source

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/podwatch/podwatch/internal/podconfig"
)

// runFile starts a File source on path with fast polling and a Period long enough
// never to pass during a test, so every SET after the first comes from change
// detection. Stopping waits for Run to return.
func runFile(t *testing.T, path string) (<-chan podconfig.PodUpdate, *collector) {
	t.Helper()
	var c collector
	src := NewFile(path, node, FileOptions{Period: time.Hour, PollInterval: 5 * time.Millisecond, Report: c.report})
	out := make(chan podconfig.PodUpdate)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); src.Run(ctx, out) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(wait):
			t.Errorf("File.Run still running %v after its ctx ended", wait)
		}
	})
	return out, &c
}

func TestFileSourceFollowsTheFolder(t *testing.T) {
	dir := t.TempDir()
	writeAtomic(t, filepath.Join(dir, "a.yaml"), manifest("a", "img:1"))
	out, reports := runFile(t, dir)
	first := waitForSET(t, out, "default/a-node-a")
	uidA := first.Pods[0].Metadata.UID

	// add
	writeAtomic(t, filepath.Join(dir, "b.json"), string(readTestdata(t, "static-web.json")))
	waitForSET(t, out, "default/a-node-a", "default/web-node-a")

	// modify: a new image is a new manifest, hence a new UID
	writeAtomic(t, filepath.Join(dir, "a.yaml"), manifest("a", "img:2"))
	u := waitFor(t, out, "a at img:2 beside web", func(u podconfig.PodUpdate) bool {
		return len(u.Pods) == 2 && u.Pods[0].Spec.Containers[0].Image == "img:2" && u.Pods[1].Metadata.Name == "web-node-a"
	})
	if u.Pods[0].Metadata.UID == uidA {
		t.Fatalf("uid unchanged by an edit: %s", uidA)
	}

	// rename: same pod, other path, other UID
	uidWeb := u.Pods[1].Metadata.UID
	if err := os.Rename(filepath.Join(dir, "b.json"), filepath.Join(dir, "c.json")); err != nil {
		t.Fatalf("rename: %v", err)
	}
	u = waitFor(t, out, "web read from its new path", func(u podconfig.PodUpdate) bool {
		return cmp.Equal(names(u.Pods), []string{"default/a-node-a", "default/web-node-a"}) &&
			u.Pods[1].Metadata.UID != uidWeb
	})
	if got, want := u.Pods[1].Metadata.Annotations[podconfig.HashAnnotation], u.Pods[1].Metadata.UID; got != want {
		t.Fatalf("config.hash after the rename = %s, want the new uid %s", got, want)
	}

	// delete
	if err := os.Remove(filepath.Join(dir, "a.yaml")); err != nil {
		t.Fatalf("remove: %v", err)
	}
	waitForSET(t, out, "default/web-node-a")
	if errs := reports.take(); len(errs) != 0 {
		t.Fatalf("reports %v, want none", errorStrings(errs))
	}
}

func TestFileSourceSkipsInvalidManifests(t *testing.T) {
	dir := t.TempDir()
	writeAtomic(t, filepath.Join(dir, "a.yaml"), manifest("a", "img"))
	writeAtomic(t, filepath.Join(dir, "bad.yaml"), "apiVersion: v1\nkind: Pod\nmetadata: {name: bad}\nspec: {}\n")
	writeAtomic(t, filepath.Join(dir, "broken.json"), `{"kind": "Pod",`)
	writeAtomic(t, filepath.Join(dir, "empty.yaml"), "")
	writeAtomic(t, filepath.Join(dir, "z.yaml"), manifest("z", "img"))
	// Ignored: dotfiles and whatever is in subfolders.
	writeAtomic(t, filepath.Join(dir, ".hidden.yaml"), manifest("hidden", "img"))
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatalf("mkdir: %v", err)
	}
	writeAtomic(t, filepath.Join(dir, "sub", "s.yaml"), manifest("s", "img"))

	out, reports := runFile(t, dir)
	waitForSET(t, out, "default/a-node-a", "default/z-node-a")
	errs := reports.take()
	var got []string
	for _, err := range errs {
		var me *ManifestError
		if !errors.As(err, &me) || me.Source != podconfig.SourceFile {
			t.Fatalf("report %v is not a file ManifestError", err)
		}
		got = append(got, filepath.Base(me.Location))
	}
	if diff := cmp.Diff([]string{"bad.yaml", "broken.json", "empty.yaml"}, got); diff != "" {
		t.Fatalf("reported files (-want +got):\n%s\nreports: %v", diff, errorStrings(errs))
	}
	var ip *InvalidPodError
	if !errors.As(errs[0], &ip) || ip.Field != "spec.containers" {
		t.Fatalf("bad.yaml reported as %v, want an InvalidPodError on spec.containers", errs[0])
	}
	if !errors.Is(errs[2], ErrEmptyBody) {
		t.Fatalf("empty.yaml reported as %v, want ErrEmptyBody", errs[2])
	}
}

func TestFileSourceFolderAppearsLater(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "manifests")
	out, reports := runFile(t, dir)
	// A missing folder is an empty SET, so the source counts as seen.
	waitForSET(t, out)
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatalf("mkdir: %v", err)
	}
	writeAtomic(t, filepath.Join(dir, "a.yaml"), manifest("a", "img"))
	waitForSET(t, out, "default/a-node-a")
	if errs := reports.take(); len(errs) != 0 {
		t.Fatalf("reports %v, want none", errorStrings(errs))
	}
}

func TestFileSourceSingleFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "web.yaml")
	writeAtomic(t, path, manifest("web", "img:1"))
	out, _ := runFile(t, path)
	waitForSET(t, out, "default/web-node-a")
	if err := os.Remove(path); err != nil {
		t.Fatalf("remove: %v", err)
	}
	waitForSET(t, out)
}

// TestFileSourceSeesAReplacementWithTheSameTime replaces a manifest by rename
// with one of the same size and modification time (as a coarse file system
// clock gives two quick writes): the new file is still seen at the next poll.
func TestFileSourceSeesAReplacementWithTheSameTime(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Fatalf("inode numbers are read on Unix only; this test has no meaning here")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "a.yaml")
	writeAtomic(t, path, manifest("a", "img:1"))
	old, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	out, _ := runFile(t, dir)
	waitForSET(t, out, "default/a-node-a")

	tmp := filepath.Join(dir, ".a.yaml.new")
	if err := os.WriteFile(tmp, []byte(manifest("a", "img:2")), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(tmp, old.ModTime(), old.ModTime()); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	waitFor(t, out, "a at img:2", func(u podconfig.PodUpdate) bool {
		return len(u.Pods) == 1 && u.Pods[0].Spec.Containers[0].Image == "img:2"
	})
}

// TestFileSourceThroughPodConfig checks what a consumer sees of a file edit: the
// old pod removed and the new one added, since an edit changes the UID.
func TestFileSourceThroughPodConfig(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.yaml")
	writeAtomic(t, path, manifest("a", "img:1"))
	ctx, cancel := context.WithCancel(context.Background())
	cfg := podconfig.New(podconfig.Incremental, podconfig.Options{})
	src := NewFile(dir, node, FileOptions{Period: time.Hour, PollInterval: 5 * time.Millisecond})
	done := make(chan struct{})
	go func() { defer close(done); src.Run(ctx, cfg.Channel(ctx, podconfig.SourceFile)) }()
	defer func() {
		cancel()
		select {
		case <-done:
		case <-time.After(wait):
			t.Errorf("File.Run still running %v after its ctx ended", wait)
		}
		cfg.Wait()
	}()
	next := func() string {
		t.Helper()
		select {
		case u := <-cfg.Updates():
			return u.Op.String() + " " + joinLines(names(u.Pods)...)
		case <-time.After(wait):
			t.Fatalf("no update within %v", wait)
			return ""
		}
	}
	if got := next(); got != "ADD default/a-node-a" {
		t.Fatalf("first update %q, want ADD default/a-node-a", got)
	}
	writeAtomic(t, path, manifest("a", "img:2"))
	got := []string{next(), next()}
	if diff := cmp.Diff([]string{"REMOVE default/a-node-a", "ADD default/a-node-a"}, got); diff != "" {
		t.Fatalf("updates after the edit (-want +got):\n%s", diff)
	}
	if !cfg.SeenAllSources([]string{podconfig.SourceFile}) {
		t.Fatalf("file source not seen after its first SET")
	}
}

// TestFileSourceRereadsOnPeriod: with nothing changed, every Period still sends
// the whole state again (and reports what is still invalid), as the kubelet does.
func TestFileSourceRereadsOnPeriod(t *testing.T) {
	dir := t.TempDir()
	writeAtomic(t, filepath.Join(dir, "a.yaml"), manifest("a", "img"))
	writeAtomic(t, filepath.Join(dir, "bad.yaml"), "kind: Pod\n")
	var c collector
	src := NewFile(dir, node, FileOptions{Period: 5 * time.Millisecond, Report: c.report})
	out := make(chan podconfig.PodUpdate)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); src.Run(ctx, out) }()
	for range 3 {
		waitForSET(t, out, "default/a-node-a")
	}
	cancel()
	select {
	case <-done:
	case <-time.After(wait):
		t.Fatalf("File.Run still running %v after its ctx ended", wait)
	}
	if n := len(c.take()); n < 3 {
		t.Fatalf("bad.yaml reported %d times over 3 reads, want at least 3", n)
	}
}
