//go:build !linux && !darwin

package cli

import "os"

// isTerminal is false where podwatch cannot ask: no progress line is drawn.
func isTerminal(*os.File) bool { return false }
