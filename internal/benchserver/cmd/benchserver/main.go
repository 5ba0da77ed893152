// Command benchserver is the synthetic apiserver of make bench
// (internal/benchserver): `benchserver serve` serves N copies of a pod and M
// events until interrupted, `benchserver stream` writes those events as a
// watch stream file for `podwatch bench decode`. Run it with no arguments
// for its flags.
package main

import "github.com/podwatch/podwatch/internal/tool"

func main() { tool.Run(Main) }
