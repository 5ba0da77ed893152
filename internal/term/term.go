// Package term tells whether a file is a terminal, for the two places
// podwatch asks: whether to draw a progress line on stderr, and whether an
// exec credential plugin may ask a person on stdin; and how wide a terminal
// is, for the text trace to fit its lines to it.
package term
