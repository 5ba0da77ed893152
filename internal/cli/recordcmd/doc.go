// Package recordcmd is podwatch record: a watch against a cluster whose
// every HTTP exchange, each body as the reads the client made with their
// timing, is saved as a fixture when the watch ends, with no credential in
// it.
package recordcmd
