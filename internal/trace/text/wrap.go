package text

import (
	"strings"
	"unicode/utf8"
)

// minWidth is the narrowest a wrapped text trace is laid out: below it the
// time and tag columns leave no room for words. A smaller TextOptions.Width
// is taken as minWidth.
const minWidth = 40

// contIndent is how much further than its line's text a continuation starts,
// so that it reads as part of that line and not as a line of its own under
// the step.
const contIndent = 2

// breakAfter are the characters a word longer than a whole line (a URL, an
// error with no spaces) is broken after, best first: between a URL's
// parameters, then between path segments or list items, then between a
// name and its value.
var breakAfter = []string{"&?", "/,;", "=:"}

// minPiece is the least room left on a line that a word too long for any
// line begins in, rather than on the next line.
const minPiece = 8

// wrapLine lays out one line of the text trace in lines of at most width
// columns, breaking at spaces. head comes first (the time and tag, or the
// indent of a line under the step) and is never broken; continuation lines
// start contIndent columns right of where text starts (or halfway across,
// if that is less, so a narrow line still has room for words). A word longer than a
// line is broken after one of breakAfter when it can be, else where the line
// ends; it begins on the line it comes to when that has room. ANSI escape sequences take no columns and are never broken. A width
// of 0 lays the line out whole.
func wrapLine(head, text string, width int) []string {
	if width <= 0 {
		return []string{head + text}
	}
	width = max(width, minWidth)
	cont := min(visibleLen(head)+contIndent, width/2)
	var lines []string
	cur, curLen, empty := head, visibleLen(head), true
	newLine := func() {
		lines = append(lines, strings.TrimRight(cur, " "))
		cur, curLen, empty = strings.Repeat(" ", cont), cont, true
	}
	for _, w := range strings.Split(text, " ") {
		wl := visibleLen(w)
		switch {
		case empty && w == "":
			continue // the spaces a break takes
		case !empty && curLen+1+wl <= width:
			cur, curLen = cur+" "+w, curLen+1+wl
			continue
		case !empty && wl > width-cont && width-curLen-1 >= minPiece:
			// It will be broken anyway: begin it here.
			cur, curLen = cur+" ", curLen+1
		case !empty:
			newLine()
		}
		for wl > width-curLen {
			piece, rest := splitWord(w, width-curLen)
			cur += piece
			newLine()
			w, wl = rest, visibleLen(rest)
		}
		if w != "" {
			cur, curLen, empty = cur+w, curLen+wl, false
		}
	}
	if !empty || len(lines) == 0 {
		lines = append(lines, strings.TrimRight(cur, " "))
	}
	return lines
}

// WrapLine is the text trace's layout (wrapLine) for podwatch's other lines
// on stderr, its warnings and errors, so that they break where the trace's
// lines break and never inside a word.
func WrapLine(head, text string, width int) []string { return wrapLine(head, text, width) }

// splitWord cuts w, longer than n columns, into a first piece of at most n
// columns and the rest: after the best of breakAfter found in the second
// half of those columns, else at n.
func splitWord(w string, n int) (piece, rest string) {
	cut, col := 0, 0
	best := make([]int, len(breakAfter))
	for i := 0; i < len(w) && col < n; {
		size := escapeLen(w[i:])
		if size == 0 {
			r, rs := utf8.DecodeRuneInString(w[i:])
			size = rs
			col++
			for rank, chars := range breakAfter {
				if col > n/2 && strings.ContainsRune(chars, r) {
					best[rank] = i + size
				}
			}
		}
		i += size
		cut = i
	}
	// Escapes right at the cut go with the piece they end (a colour reset).
	for cut < len(w) && escapeLen(w[cut:]) > 0 {
		cut += escapeLen(w[cut:])
	}
	for _, b := range best {
		if b > 0 && b < cut {
			return w[:b], w[b:]
		}
	}
	return w[:cut], w[cut:]
}

// visibleLen is how many columns s takes on a terminal: its runes, less
// its ANSI escape sequences. Every rune is taken as one column.
func visibleLen(s string) int {
	n := 0
	for i := 0; i < len(s); {
		if size := escapeLen(s[i:]); size > 0 {
			i += size
			continue
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		n++
	}
	return n
}

// escapeLen is the length of the ANSI CSI sequence (ESC [ ... final byte)
// s begins with, or 0.
func escapeLen(s string) int {
	if len(s) < 2 || s[0] != 0x1b || s[1] != '[' {
		return 0
	}
	for i := 2; i < len(s); i++ {
		if s[i] >= 0x40 && s[i] <= 0x7e {
			return i + 1
		}
	}
	return len(s)
}
