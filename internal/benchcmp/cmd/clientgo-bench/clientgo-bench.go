package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime"
)

const usage = "usage: clientgo-bench sync|decode|protobuf-stream|cbor-stream [flags]\n"

// errUsage is a bad command line, already reported.
var errUsage = errors.New("usage")

// Main runs the command line args (without the program name), prints one
// JSON line on stdout, and returns the exit status: 0, 1, or 2 for a bad
// command line.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	var err error
	switch args[0] {
	case "sync":
		err = runSync(ctx, args[1:], stdout, stderr)
	case "decode":
		err = runDecode(args[1:], stdout, stderr)
	case "protobuf-stream":
		err = runStream("protobuf-stream", "application/vnd.kubernetes.protobuf", args[1:], stderr)
	case "cbor-stream":
		err = runStream("cbor-stream", "application/cbor", args[1:], stderr)
	default:
		fmt.Fprintf(stderr, "clientgo-bench: unknown benchmark %q\n%s", args[0], usage)
		return 2
	}
	switch {
	case err == nil || errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errUsage):
		return 2
	default:
		fmt.Fprintln(stderr, "clientgo-bench:", err)
		return 1
	}
}

func printJSON(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

func memFigures() (uint64, float64) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.Mallocs, float64(ms.TotalAlloc) / (1 << 20)
}

func newFlags(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("clientgo-bench "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}

// parse parses args into fs, which takes no positional arguments.
func parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return errUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(fs.Output(), "%s: unexpected argument %q\n", fs.Name(), fs.Arg(0))
		return errUsage
	}
	return nil
}
