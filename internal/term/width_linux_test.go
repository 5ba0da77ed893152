package term

import (
	"fmt"
	"os"
	"syscall"
	"testing"
	"unsafe"
)

// openPTY opens a new pseudo-terminal and returns its two ends.
func openPTY(t *testing.T) (controller, terminal *os.File) {
	t.Helper()
	controller, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Fatalf("open a pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { controller.Close() })
	var unlock int32
	if err := ioctl(controller, syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); err != nil {
		t.Fatalf("unlock the pseudo-terminal: %v", err)
	}
	var n uint32
	if err := ioctl(controller, syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); err != nil {
		t.Fatalf("number the pseudo-terminal: %v", err)
	}
	terminal, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("open the terminal end: %v", err)
	}
	t.Cleanup(func() { terminal.Close() })
	return controller, terminal
}

func ioctl(f *os.File, req, arg uintptr) error {
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), req, arg); errno != 0 {
		return errno
	}
	return nil
}

// Width reads what the terminal was set to, as a resize would set it.
func TestWidthOfATerminal(t *testing.T) {
	controller, terminal := openPTY(t)
	for _, cols := range []uint16{120, 57} {
		ws := struct{ Row, Col, Xpixel, Ypixel uint16 }{Row: 40, Col: cols}
		if err := ioctl(controller, syscall.TIOCSWINSZ, uintptr(unsafe.Pointer(&ws))); err != nil {
			t.Fatalf("set the size: %v", err)
		}
		if !IsTerminal(terminal) {
			t.Fatalf("the pseudo-terminal is not taken for a terminal")
		}
		if got, ok := Width(terminal); !ok || got != int(cols) {
			t.Fatalf("Width: got %d, %v; want %d, true", got, ok, cols)
		}
	}
}
