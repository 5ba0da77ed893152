// Command benchrun is make bench: it runs podwatch bench and clientgo-bench on
// the same synthetic apiserver (benchserver serve) and the same watch stream
// (benchserver stream), measures each whole process (wall time, user+system
// CPU, peak RSS from its rusage), and prints one side-by-side table with the
// ratios. See docs/BENCH.md.
package main

import "github.com/podwatch/podwatch/internal/tool"

func main() { tool.Run(Main) }
