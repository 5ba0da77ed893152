//go:build !unix

package cluster

// lockFile is a no-op where flock is missing: concurrent builds then waste
// time but stay correct, because each installs its binary by rename.
func lockFile(string) (unlock func(), err error) { return func() {}, nil }
