package compat

import "strconv"

// parseRV reads a resourceVersion as the number Kubernetes documents it to be
// comparable as.
func parseRV(rv string) (int64, error) { return strconv.ParseInt(rv, 10, 64) }
