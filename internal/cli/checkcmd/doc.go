// Package checkcmd is podwatch check: the battery of named checks
// (internal/check) run against a server, one verdict a line with its
// evidence, exit 1 when a check that applies fails.
package checkcmd
