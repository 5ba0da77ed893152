//go:build !linux && !darwin

package kubeconfig

import "os"

// isTerminal guesses from the file mode where no tty ioctl is wired up; it
// takes any character device for a terminal.
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
