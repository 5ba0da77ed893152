package meta

import "fmt"

// CompareResourceVersions orders two resourceVersions of the same resource: -1 when
// a is older, 0 when equal, +1 when newer.
//
// podwatch relies on resourceVersions being comparable: since Kubernetes 1.35 the
// API documents them as positive decimal integers without leading zeros, of any
// length, whose order is the order of changes to one resource type. Anything else
// (an empty string, "0", a leading zero, a non-digit) is an error, never a guess.
func CompareResourceVersions(a, b string) (int, error) {
	if err := checkResourceVersion(a); err != nil {
		return 0, err
	}
	if err := checkResourceVersion(b); err != nil {
		return 0, err
	}
	switch {
	case len(a) < len(b):
		return -1, nil
	case len(a) > len(b):
		return 1, nil
	case a < b:
		return -1, nil
	case a > b:
		return 1, nil
	}
	return 0, nil
}

func checkResourceVersion(rv string) error {
	if rv == "" || rv[0] == '0' {
		return fmt.Errorf("resourceVersion %q is not comparable: want a positive integer without leading zeros", rv)
	}
	for i := 0; i < len(rv); i++ {
		if rv[i] < '0' || rv[i] > '9' {
			return fmt.Errorf("resourceVersion %q is not comparable: want a positive integer without leading zeros", rv)
		}
	}
	return nil
}
