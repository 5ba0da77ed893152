package fault

import (
	"fmt"
	"math"
	"net/http"
	"strconv"

	"github.com/podwatch/podwatch/internal/apiwire"
)

// GoneStatus is the Status of a 410: the resourceVersion asked for is older
// than what the server still has.
func GoneStatus() apiwire.Status {
	return apiwire.Gone("podwatch fault: too old resource version")
}

// Answer writes f's whole answer in place of the real response and reports
// true, or writes nothing and reports false when f is a stream fault.
func Answer(w http.ResponseWriter, f Fault) bool {
	switch f.Kind {
	case Gone:
		GoneStatus().Write(w)
	case TooMany:
		secs := int(math.Ceil(f.wait().Seconds()))
		w.Header().Set("Retry-After", strconv.Itoa(max(secs, 1)))
		apiwire.Status{Code: http.StatusTooManyRequests, Reason: "TooManyRequests",
			Message: "podwatch fault: too many requests, please try again later"}.Write(w)
	case Internal:
		apiwire.Status{Code: http.StatusInternalServerError, Reason: "InternalError",
			Message: "podwatch fault: an error on the server has prevented the request from succeeding"}.Write(w)
	case HTML:
		code := f.Status
		if code == 0 {
			code = defaultHTML
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(code)
		fmt.Fprintf(w, "<!DOCTYPE html>\n<html><head><title>%d %s</title></head>\n<body><h1>%s</h1><p>podwatch fault: a proxy answered in place of the apiserver.</p></body></html>\n",
			code, http.StatusText(code), http.StatusText(code))
	default:
		return false
	}
	return true
}
