//go:build race

package source

// raceDetector says the tests run under the race detector.
const raceDetector = true
