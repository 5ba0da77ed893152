//go:build !linux && !darwin

package term

import "os"

// IsTerminal guesses from the file mode where no tty ioctl is wired up; it
// takes any character device for a terminal.
func IsTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
