//go:build linux || darwin

package term

import (
	"os"
	"syscall"
	"unsafe"
)

// Width asks the tty driver how many columns the terminal f shows; false
// when f is not a terminal or the driver does not know (a width of 0).
func Width(f *os.File) (int, bool) {
	var ws struct{ Row, Col, Xpixel, Ypixel uint16 }
	_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), syscall.TIOCGWINSZ, uintptr(unsafe.Pointer(&ws)))
	if errno != 0 || ws.Col == 0 {
		return 0, false
	}
	return int(ws.Col), true
}
