package base

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
)

// ErrHelp is --help: usage was printed to stdout and the command ends with 0.
var ErrHelp = errors.New("help requested")

// UsageError is a command line that cannot be run; it exits with status 2.
type UsageError struct {
	Cmd string // the subcommand, for the hint to run its --help
	msg string
}

func (e *UsageError) Error() string { return e.msg }

// Usagef is a UsageError of the command cmd ("" for none).
func Usagef(cmd, format string, args ...any) error {
	return &UsageError{Cmd: cmd, msg: fmt.Sprintf(format, args...)}
}

// StatusError is an error that ends the command with its own exit status.
type StatusError interface {
	error
	ExitStatus() int
}

// Command is one subcommand's flag set and help text.
type Command struct {
	Name    string
	summary string // the usage line(s) and a sentence or two
	Flags   *flag.FlagSet
	// aliases maps a short flag name to the long one it spells too.
	aliases map[string]string
	// args are the arguments Parse was given, for the trace page's record.
	args []string
}

// NewCommand is a command with no flags yet; summary is the top of its
// --help.
func NewCommand(name, summary string) *Command {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are reported once, by Run
	return &Command{Name: name, summary: summary, Flags: fs, aliases: map[string]string{}}
}

// Alias registers short as a second name of the already defined flag long.
func (c *Command) Alias(short, long string) {
	f := c.Flags.Lookup(long)
	c.Flags.Var(f.Value, short, f.Usage)
	c.aliases[short] = long
}

// Parse parses args, allowing flags after positional arguments (as kubectl
// does: "serve FIXTURE --addr A"); "--" ends the flags. It returns the
// positional arguments. --help prints the usage to stdout and returns ErrHelp.
func (c *Command) Parse(stdout io.Writer, args []string) ([]string, error) {
	c.args = append([]string(nil), args...)
	var pos []string
	for {
		if err := c.Flags.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				c.printUsage(stdout)
				return nil, ErrHelp
			}
			return nil, Usagef(c.Name, "%v", err)
		}
		left := c.Flags.Args()
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

// ParseNoArgs parses args for a command that takes flags only.
func (c *Command) ParseNoArgs(stdout io.Writer, args []string) error {
	pos, err := c.Parse(stdout, args)
	if err == nil && len(pos) > 0 {
		err = Usagef(c.Name, "unexpected argument %q", pos[0])
	}
	return err
}

// Set reports whether the flag name (or its alias) was given.
func (c *Command) Set(name string) bool {
	found := false
	c.Flags.Visit(func(f *flag.Flag) {
		if f.Name == name || c.aliases[f.Name] == name {
			found = true
		}
	})
	return found
}

// helpWidth is the width a flag's help is folded at: the commands' own
// summaries are written to it.
const helpWidth = 80

func (c *Command) printUsage(w io.Writer) {
	fmt.Fprintf(w, "%s\nFlags:\n", c.summary)
	shorts := map[string]string{}
	for s, l := range c.aliases {
		shorts[l] = s
	}
	var names []string
	c.Flags.VisitAll(func(f *flag.Flag) {
		if _, isAlias := c.aliases[f.Name]; !isAlias {
			names = append(names, f.Name)
		}
	})
	sort.Strings(names)
	for _, n := range names {
		f := c.Flags.Lookup(n)
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
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" && f.DefValue != "[]" {
			usage += fmt.Sprintf(" (default %s)", f.DefValue)
		}
		// Folded as the summary is, so that no line breaks inside a word on
		// a terminal: help goes to stdout, whose width is not known.
		b.WriteString("\n" + Fold("      ", usage, helpWidth))
		fmt.Fprintln(w, b.String())
	}
}

// OutputFlag is -o/--output of a command that prints text, or JSON lines.
type OutputFlag struct{ format string }

// Register defines -o and --output on c.
func (o *OutputFlag) Register(c *Command) {
	c.Flags.StringVar(&o.format, "output", "text", "output `format`: text or json")
	c.Alias("o", "output")
}

// Check refuses a format other than text or json.
func (o *OutputFlag) Check(c *Command) error {
	if o.format != "text" && o.format != "json" {
		return Usagef(c.Name, "-o %q: want text or json", o.format)
	}
	return nil
}

// JSON reports whether -o json was given.
func (o *OutputFlag) JSON() bool { return o.format == "json" }

// StringList is a repeatable string flag.
type StringList []string

func (s *StringList) String() string { return strings.Join(*s, ",") }

func (s *StringList) Set(v string) error {
	*s = append(*s, v)
	return nil
}
