package table

import (
	"strconv"
	"time"
)

// Age writes d the way kubectl's columns do (AGE, and the "ago" of
// RESTARTS): whole seconds up to two minutes, then coarser and coarser
// units, "<invalid>" for a time more than a second in the future.
//
// The steps are the apiserver's, so that a cell reads the same whoever
// made it: seconds below 2m; minutes and seconds below 10m; minutes below
// 3h; hours and minutes below 8h; hours below 2d; days and hours below 8d;
// days below 2y; years and days below 8y; then years. A second part that is
// zero is left out ("5m", not "5m0s").
func Age(d time.Duration) string {
	secs := int64(d.Seconds()) // toward zero, as the apiserver counts
	switch {
	case secs < -1:
		// A clock a little behind the one that stamped the object is
		// tolerated; more than that is a time that cannot be.
		return "<invalid>"
	case secs < 0:
		return "0s"
	case secs < 120:
		return itoa(secs) + "s"
	}
	mins := int64(d / time.Minute)
	switch {
	case mins < 10:
		return pair(mins, "m", int64(d/time.Second)%60, "s")
	case mins < 3*60:
		return itoa(mins) + "m"
	}
	hours := int64(d / time.Hour)
	days := hours / 24
	switch {
	case hours < 8:
		return pair(hours, "h", mins%60, "m")
	case hours < 48:
		return itoa(hours) + "h"
	case hours < 8*24:
		return pair(days, "d", hours%24, "h")
	case hours < 2*365*24:
		return itoa(days) + "d"
	case hours < 8*365*24:
		return pair(days/365, "y", days%365, "d")
	}
	return itoa(days/365) + "y"
}

// pair writes a count of one unit and of the next smaller one, leaving the
// smaller out when it is zero.
func pair(n int64, unit string, rest int64, restUnit string) string {
	if rest == 0 {
		return itoa(n) + unit
	}
	return itoa(n) + unit + itoa(rest) + restUnit
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
