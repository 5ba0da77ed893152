package session

import (
	"strings"
	"unicode/utf8"
)

// columns lays out the text output's lines as kubectl lays out its tables
// (cli-runtime's tabwriter: cells padded with spaces to a minimum column
// width of 6 and 3 spaces between columns), including the way kubectl get
// -w keeps them: a column's width is that of the widest cell seen so far,
// and never shrinks, so a later line does not pull its columns left of the
// lines above. A line's last cell is not padded and so does not widen its
// column, as tabwriter leaves the text after a line's last tab alone: an
// ERROR's message or "(no pods)" stays on its line without pushing every
// later line right.
//
// The zero columns is ready to use; it is not safe for concurrent use.
type columns struct {
	widths []int
}

const (
	columnMinWidth = 6
	columnPadding  = 3
)

// grow makes column i wide enough for cell. Besides layout's own, the
// printer grows the columns for the header's cells and an operation's
// longest name before the first line, so that the first lines are as wide
// as the later ones.
func (c *columns) grow(i int, cell string) {
	for len(c.widths) <= i {
		c.widths = append(c.widths, columnMinWidth)
	}
	c.widths[i] = max(c.widths[i], utf8.RuneCountInString(cell)+columnPadding)
}

// layout writes rows, one line each, their columns widened first for every
// cell of rows that is not the last of its row: the rows of one update are
// aligned with each other as well as with the lines before them. A row's
// empty cells at its end widen their columns (a pod with no note still
// has an IP) but are not written: a line ends with its last cell that says
// something, not with spaces.
func (c *columns) layout(rows [][]string) []byte {
	for _, row := range rows {
		for i := range len(row) - 1 {
			c.grow(i, row[i])
		}
	}
	var b strings.Builder
	for _, row := range rows {
		for len(row) > 0 && row[len(row)-1] == "" {
			row = row[:len(row)-1]
		}
		for i, cell := range row {
			b.WriteString(cell)
			if i < len(row)-1 {
				b.WriteString(strings.Repeat(" ", c.widths[i]-utf8.RuneCountInString(cell)))
			}
		}
		b.WriteByte('\n')
	}
	return []byte(b.String())
}
