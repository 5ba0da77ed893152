//go:build unix

package source

import (
	"io/fs"
	"syscall"
)

// inode is the file's inode number: a manifest replaced by rename (as editors
// and configuration tools write) has a new one even when its size and
// modification time match the old file's.
func inode(info fs.FileInfo) uint64 {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}
