// Package docs holds no code, only the tests that keep docs/ true: every
// wire snippet of docs/PROTOCOL.md must still be in the bundled fixture it
// names, and docs/TRACE.md must document every member the JSON trace writes.
package docs
