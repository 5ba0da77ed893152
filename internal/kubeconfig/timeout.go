package kubeconfig

import (
	"fmt"
	"strconv"
	"time"
)

// ParseTimeout reads a --request-timeout value as kubectl does: a duration
// ("30s", "1m"), or a bare number of seconds; "0" or "" means no timeout.
func ParseTimeout(s string) (time.Duration, error) {
	if s == "" {
		return 0, nil
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		if n < 0 || n > int64(time.Duration(1<<63-1)/time.Second) {
			return 0, &ConfigError{Field: "request-timeout", Reason: fmt.Sprintf("%q is out of range", s)}
		}
		return time.Duration(n) * time.Second, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, &ConfigError{Field: "request-timeout", Reason: fmt.Sprintf("%q is not a duration such as 30s or 1m", s)}
	}
	if d < 0 {
		return 0, &ConfigError{Field: "request-timeout", Reason: fmt.Sprintf("%q is negative", s)}
	}
	return d, nil
}
