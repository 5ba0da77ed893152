package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/podwatch/podwatch/internal/protogen"
)

// Main generates the schema into the file -out names: run from
// internal/protogen, the default is the checked-in file.
func Main(_ context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("protogen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "../../rest/protowire/schema_gen.go", "the `file` to write")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "protogen: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	src, err := protogen.Generate()
	if err == nil {
		err = os.WriteFile(*out, src, 0o644)
	}
	if err != nil {
		fmt.Fprintln(stderr, "protogen:", err)
		return 1
	}
	fmt.Fprintf(stdout, "protogen: wrote %s\n", *out)
	return 0
}
