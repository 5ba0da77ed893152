// Package diffcmd is podwatch diff: two runs of a watch client (recordings
// or JSON traces) read by internal/rundiff, where they first part and what
// each holds that the other does not; exit 1 when they differ, 2 when one
// cannot be read.
package diffcmd
