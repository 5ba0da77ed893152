package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
)

// errHelp is --help: usage was printed to stdout and the command ends with 0.
var errHelp = errors.New("help requested")

// usageError is a command line that cannot be run; it exits with status 2.
type usageError struct {
	cmd string // the subcommand, for the hint to run its --help
	msg string
}

func (e *usageError) Error() string { return e.msg }

func usagef(cmd, format string, args ...any) error {
	return &usageError{cmd: cmd, msg: fmt.Sprintf(format, args...)}
}

// command is one subcommand's flag set and help text.
type command struct {
	name    string
	summary string // the usage line(s) and a sentence or two
	fs      *flag.FlagSet
	// aliases maps a short flag name to the long one it spells too.
	aliases map[string]string
	// args are the arguments parse was given, for the trace page's record.
	args []string
}

func newCommand(name, summary string) *command {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are reported once, by Run
	return &command{name: name, summary: summary, fs: fs, aliases: map[string]string{}}
}

// alias registers short as a second name of the already defined flag long.
func (c *command) alias(short, long string) {
	f := c.fs.Lookup(long)
	c.fs.Var(f.Value, short, f.Usage)
	c.aliases[short] = long
}

// parse parses args, allowing flags after positional arguments (as kubectl
// does: "serve FIXTURE --addr A"); "--" ends the flags. It returns the
// positional arguments. --help prints the usage to stdout and returns errHelp.
func (c *command) parse(stdout io.Writer, args []string) ([]string, error) {
	c.args = append([]string(nil), args...)
	var pos []string
	for {
		if err := c.fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				c.printUsage(stdout)
				return nil, errHelp
			}
			return nil, usagef(c.name, "%v", err)
		}
		left := c.fs.Args()
		if len(left) == 0 {
			return pos, nil
		}
		if consumed := len(args) - len(left); consumed > 0 && args[consumed-1] == "--" {
			return append(pos, left...), nil
		}
		pos = append(pos, left[0])
		args = left[1:]
	}
}

// parseNoArgs parses args for a command that takes flags only.
func (c *command) parseNoArgs(stdout io.Writer, args []string) error {
	pos, err := c.parse(stdout, args)
	if err == nil && len(pos) > 0 {
		err = usagef(c.name, "unexpected argument %q", pos[0])
	}
	return err
}

// outputFlag is -o/--output of a command that prints text, or JSON lines.
type outputFlag struct{ format string }

func (o *outputFlag) register(c *command) {
	c.fs.StringVar(&o.format, "output", "text", "output `format`: text or json")
	c.alias("o", "output")
}

// check refuses a format other than text or json.
func (o *outputFlag) check(c *command) error {
	if o.format != "text" && o.format != "json" {
		return usagef(c.name, "-o %q: want text or json", o.format)
	}
	return nil
}

func (o *outputFlag) json() bool { return o.format == "json" }

// set reports whether the flag name (or its alias) was given.
func (c *command) set(name string) bool {
	found := false
	c.fs.Visit(func(f *flag.Flag) {
		if f.Name == name || c.aliases[f.Name] == name {
			found = true
		}
	})
	return found
}

func (c *command) printUsage(w io.Writer) {
	fmt.Fprintf(w, "%s\nFlags:\n", c.summary)
	shorts := map[string]string{}
	for s, l := range c.aliases {
		shorts[l] = s
	}
	var names []string
	c.fs.VisitAll(func(f *flag.Flag) {
		if _, isAlias := c.aliases[f.Name]; !isAlias {
			names = append(names, f.Name)
		}
	})
	sort.Strings(names)
	for _, n := range names {
		f := c.fs.Lookup(n)
		typ, usage := flag.UnquoteUsage(f)
		var b strings.Builder
		b.WriteString("  ")
		if s, ok := shorts[n]; ok {
			b.WriteString("-" + s + ", ")
		}
		if len(n) == 1 {
			b.WriteString("-" + n)
		} else {
			b.WriteString("--" + n)
		}
		if typ != "" {
			b.WriteString(" " + typ)
		}
		b.WriteString("\n      " + usage)
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" && f.DefValue != "[]" {
			fmt.Fprintf(&b, " (default %s)", f.DefValue)
		}
		fmt.Fprintln(w, b.String())
	}
}

// stringList is a repeatable string flag.
type stringList []string

func (s *stringList) String() string { return strings.Join(*s, ",") }

func (s *stringList) Set(v string) error {
	*s = append(*s, v)
	return nil
}
