// Package versioncmd is podwatch version: the release (base.Release), and
// the Go toolchain and platform podwatch was built for.
package versioncmd
