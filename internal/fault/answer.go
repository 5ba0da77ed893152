package fault

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strconv"
)

// status is the apiserver's error body, written here so a fault answer looks
// exactly like a real one to the client.
type status struct {
	Kind       string `json:"kind"`
	APIVersion string `json:"apiVersion"`
	Metadata   struct {
	} `json:"metadata"`
	Status  string `json:"status"`
	Message string `json:"message"`
	Reason  string `json:"reason"`
	Code    int    `json:"code"`
}

func statusJSON(code int, reason, message string) []byte {
	b, _ := json.Marshal(status{Kind: "Status", APIVersion: "v1", Status: "Failure", Message: message, Reason: reason, Code: code})
	return b
}

// GoneStatus is the Status of a 410: the resourceVersion asked for is older
// than what the server still has.
func GoneStatus() []byte {
	return statusJSON(http.StatusGone, "Expired", "podwatch fault: too old resource version")
}

// Answer writes f's whole answer in place of the real response and reports
// true, or writes nothing and reports false when f is a stream fault.
func Answer(w http.ResponseWriter, f Fault) bool {
	switch f.Kind {
	case Gone:
		writeStatus(w, http.StatusGone, GoneStatus())
	case TooMany:
		secs := int(math.Ceil(f.wait().Seconds()))
		w.Header().Set("Retry-After", strconv.Itoa(max(secs, 1)))
		writeStatus(w, http.StatusTooManyRequests, statusJSON(http.StatusTooManyRequests, "TooManyRequests",
			"podwatch fault: too many requests, please try again later"))
	case Internal:
		writeStatus(w, http.StatusInternalServerError, statusJSON(http.StatusInternalServerError, "InternalError",
			"podwatch fault: an error on the server has prevented the request from succeeding"))
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

func writeStatus(w http.ResponseWriter, code int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	w.Write(append(body, '\n'))
}
