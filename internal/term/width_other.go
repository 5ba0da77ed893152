//go:build !linux && !darwin

package term

import "os"

// Width is never known where no tty ioctl is wired up: callers fall back to
// $COLUMNS or to no width at all.
func Width(f *os.File) (int, bool) { return 0, false }
