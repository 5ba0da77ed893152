package source

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/podwatch/podwatch/internal/podconfig"
	"github.com/podwatch/podwatch/rest/api"
)

// FileOptions tune a File source; the zero value works.
type FileOptions struct {
	// Period is how often every manifest is read again and sent, changed or
	// not, as the kubelet's fileCheckFrequency. Default 20s.
	Period time.Duration
	// PollInterval is how often the path is checked for changes between full
	// reads. Default 1s; at most Period.
	PollInterval time.Duration
	// Report is told of every manifest that cannot be used, and of a path that
	// cannot be read. It runs on Run's goroutine and must not block.
	Report func(source string, err error)
}

// File is the "file" source: static pod manifests in a folder (one Pod per file,
// YAML or JSON; dotfiles and subfolders ignored) or a single file.
//
// Changes are found by polling, not by file system notifications, which would
// need a dependency: every PollInterval the source lists the path and compares
// names, sizes, modification times, modes and (on Unix) inode numbers with the
// last read, and reads everything again when they differ or Period has passed.
// A file replaced by rename is seen at the next poll whatever its time; an edit
// in place that keeps both size and modification time (timestamps can be coarse)
// is seen at the next Period.
type File struct {
	path, node string
	opts       FileOptions
}

// NewFile returns a source for the manifests at path, for node nodeName.
func NewFile(path, nodeName string, opts FileOptions) *File {
	if opts.Period <= 0 {
		opts.Period = 20 * time.Second
	}
	if opts.PollInterval <= 0 {
		opts.PollInterval = time.Second
	}
	opts.PollInterval = min(opts.PollInterval, opts.Period)
	if opts.Report == nil {
		opts.Report = func(string, error) {}
	}
	return &File{path: path, node: nodeName, opts: opts}
}

// Run reads the manifests now, then as described on File, and sends each read as
// a SET on out: all valid pods, sorted by file name, or none when the path does
// not exist (so the source still counts as seen). It blocks until ctx ends.
func (f *File) Run(ctx context.Context, out chan<- podconfig.PodUpdate) {
	tick := time.NewTicker(f.opts.PollInterval)
	defer tick.Stop()
	var last []fileStamp
	var lastRead time.Time
	for {
		entries, err := f.list()
		stamps := stampsOf(entries)
		switch {
		case err != nil:
			f.opts.Report(podconfig.SourceFile, err)
		case last == nil || !slices.Equal(stamps, last) || time.Since(lastRead) >= f.opts.Period:
			last, lastRead = stamps, time.Now()
			u := podconfig.PodUpdate{Op: podconfig.SET, Pods: f.read(entries), Source: podconfig.SourceFile}
			select {
			case out <- u:
			case <-ctx.Done():
				return
			}
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			return
		}
	}
}

// fileEntry is one manifest file to read.
type fileEntry struct {
	path string
	info fs.FileInfo
}

// fileStamp is what change detection compares.
type fileStamp struct {
	path  string
	size  int64
	mtime time.Time
	mode  fs.FileMode
	ino   uint64
}

func stampsOf(entries []fileEntry) []fileStamp {
	s := make([]fileStamp, len(entries))
	for i, e := range entries {
		s[i] = fileStamp{e.path, e.info.Size(), e.info.ModTime(), e.info.Mode(), inode(e.info)}
	}
	return s
}

// list returns the manifest files at the path, sorted by name: none when it
// does not exist.
func (f *File) list() ([]fileEntry, error) {
	info, err := os.Stat(f.path)
	if errors.Is(err, fs.ErrNotExist) {
		return []fileEntry{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("file source: %w", err)
	}
	if !info.IsDir() {
		return []fileEntry{{f.path, info}}, nil
	}
	dir, err := os.ReadDir(f.path)
	if err != nil {
		return nil, fmt.Errorf("file source: %w", err)
	}
	entries := []fileEntry{}
	for _, d := range dir {
		if strings.HasPrefix(d.Name(), ".") {
			continue
		}
		p := filepath.Join(f.path, d.Name())
		// Stat, not the entry's own type, so a symlink counts as what it points
		// to; one that vanished meanwhile is skipped and the next poll sees it.
		info, err := os.Stat(p)
		if err != nil || !info.Mode().IsRegular() {
			continue
		}
		entries = append(entries, fileEntry{p, info})
	}
	return entries, nil
}

// read decodes every entry, reporting and skipping the ones that fail.
func (f *File) read(entries []fileEntry) []*api.Pod {
	pods := make([]*api.Pod, 0, len(entries))
	for _, e := range entries {
		p, err := f.readOne(e.path)
		if err != nil {
			f.opts.Report(podconfig.SourceFile, &ManifestError{Source: podconfig.SourceFile, Location: e.path, Err: err})
			continue
		}
		pods = append(pods, p)
	}
	return pods
}

func (f *File) readOne(path string) (*api.Pod, error) {
	data, err := readLimited(path)
	if err != nil {
		return nil, err
	}
	if len(data) == 0 {
		return nil, ErrEmptyBody
	}
	ps, _, err := decodeManifest(data, false)
	if err != nil {
		return nil, err
	}
	p := ps[0]
	if err := (static{node: f.node, location: path, isFile: true}).apply(p, false); err != nil {
		return nil, err
	}
	return p, nil
}

func readLimited(path string) ([]byte, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	data, err := io.ReadAll(io.LimitReader(fh, MaxManifestSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxManifestSize {
		return nil, ErrTooLarge
	}
	return data, nil
}
