package protowire

// CheckEveryRun makes every kept run checked, even one equal to a run
// checked before, until the returned func is called: for measuring what a
// pod unlike any before costs.
func CheckEveryRun() (restore func()) {
	memoChecks = false
	return func() { memoChecks = true }
}
