// Package servecmd is podwatch serve: a fake apiserver that replays a
// recorded fixture to any client (podwatch, client-go, kubectl), faults
// injected on request, or with --simulate the model apiserver's pods
// churning as a live cluster's do.
package servecmd
