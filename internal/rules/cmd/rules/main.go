// Command rules checks the rules of podwatch's code that no compiler keeps
// (package rules) over the module in the current directory: make lint runs
// it. It prints each violation and exits 1 if there is any.
package main

import (
	"context"
	"fmt"
	"io"

	"github.com/podwatch/podwatch/internal/rules"
	"github.com/podwatch/podwatch/internal/tool"
)

func main() { tool.Run(Main) }

// Main checks the module rooted at the working directory, or at the one
// argument given.
func Main(_ context.Context, args []string, stdout, stderr io.Writer) int {
	root := "."
	switch len(args) {
	case 0:
	case 1:
		root = args[0]
	default:
		fmt.Fprintln(stderr, "usage: rules [MODULE-ROOT]")
		return tool.ExitUsage
	}
	vs, err := rules.Check(root)
	if err != nil {
		fmt.Fprintf(stderr, "rules: %v\n", err)
		return tool.ExitError
	}
	for _, v := range vs {
		fmt.Fprintln(stdout, v)
	}
	if len(vs) > 0 {
		fmt.Fprintf(stderr, "rules: %d violations\n", len(vs))
		return tool.ExitError
	}
	return tool.ExitOK
}
