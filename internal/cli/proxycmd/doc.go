// Package proxycmd is podwatch proxy: every request of any client forwarded
// to the cluster with podwatch's credentials, streamed read by read,
// narrated by the trace and kept as a fixture per client on request.
package proxycmd
