// Package replayclock is the time of a replay: one timing.TimerClock that the
// fixture server's recorded time, the client's waits (backoffs, Retry-After)
// and its guards (header timeout, watchdog, watch list deadline) and the
// trace's timestamps all run on.
//
// At a speed S > 0 it is Scaled: the wall clock run S times as fast, so a
// wait of d takes d/S of wall time. At speed 0 it is Virtual: a wait passes
// at once and moves the replay's time on by d, so a replay with backoffs
// ends in moments and, its jitter seeded, is timed the same on every run.
//
// Recorder sits between either and the wall clock to tell what they asked
// of it: tests check by it that a replay at speed 0 waits on nothing, and
// that at speed S its waits are the replay's waits divided by S.
package replayclock
