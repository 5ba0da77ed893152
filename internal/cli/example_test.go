package cli_test

import (
	"context"
	"fmt"
	"os"

	"github.com/podwatch/podwatch/internal/cli"
)

// A command line that cannot work is refused before anything is sent, with
// exit status 2 and a pointer to the command's help.
func ExampleMain() {
	code := cli.Main(context.Background(), []string{"watch", "--node", "node-1", "--all-nodes"}, os.Stdout, os.Stdout)
	fmt.Println("exit status", code)
	// Output:
	// podwatch: --node and --all-nodes cannot be combined
	// Run 'podwatch watch --help' for usage.
	// exit status 2
}
