package term

import (
	"os"
	"syscall"
	"unsafe"
)

// IsTerminal asks the tty driver for f's settings, which only a terminal has
// (a mode check would take /dev/null for a terminal too).
func IsTerminal(f *os.File) bool {
	var t syscall.Termios
	_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), syscall.TCGETS, uintptr(unsafe.Pointer(&t)))
	return errno == 0
}
