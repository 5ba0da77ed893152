package table

import (
	"testing"
	"time"
)

func TestAge(t *testing.T) {
	for d, want := range map[time.Duration]string{
		-3 * time.Second:                 "<invalid>",
		-1500 * time.Millisecond:         "0s",
		-time.Second:                     "0s",
		0:                                "0s",
		1999 * time.Millisecond:          "1s",
		119 * time.Second:                "119s",
		2 * time.Minute:                  "2m",
		2*time.Minute + 5*time.Second:    "2m5s",
		9*time.Minute + 59*time.Second:   "9m59s",
		10*time.Minute + 30*time.Second:  "10m",
		179 * time.Minute:                "179m",
		3 * time.Hour:                    "3h",
		3*time.Hour + 30*time.Minute:     "3h30m",
		7*time.Hour + 59*time.Minute:     "7h59m",
		8*time.Hour + 30*time.Minute:     "8h",
		47 * time.Hour:                   "47h",
		48 * time.Hour:                   "2d",
		50 * time.Hour:                   "2d2h",
		7*24*time.Hour + 23*time.Hour:    "7d23h",
		8 * 24 * time.Hour:               "8d",
		729 * 24 * time.Hour:             "729d",
		730 * 24 * time.Hour:             "2y",
		(3*365 + 10) * 24 * time.Hour:    "3y10d",
		8 * 365 * 24 * time.Hour:         "8y",
		(20*365 + 100) * 24 * time.Hour:  "20y",
		5*24*time.Hour + 30*time.Minute:  "5d",
		2*time.Minute + 59*time.Second:   "2m59s",
		10*time.Minute - time.Nanosecond: "9m59s",
	} {
		if got := Age(d); got != want {
			t.Errorf("Age(%v) = %q, want %q", d, got, want)
		}
	}
}
