// Package docs holds no code, only the tests that keep the docs true: every
// wire snippet of docs/PROTOCOL.md must still be in the bundled fixture it
// names, docs/TRACE.md must document every member the JSON trace writes, and
// the public packages' documentation (go doc) must name no internal or
// third-party package, so that what it promises can be used from outside.
package docs
