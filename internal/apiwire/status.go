package apiwire

import (
	"encoding/json"
	"net/http"
)

// Status is a failure as the apiserver reports it, in an answer's body or in
// a watch's ERROR event.
type Status struct {
	Code    int
	Reason  string // the machine-readable cause: NotFound, Expired, BadRequest...
	Message string
	// Details, when not nil, is written as the Status's details member; the
	// apiserver sends an empty one with NotFound for an unknown path.
	Details *Details
}

// Details is the part of a Status's details member podwatch's servers fill.
type Details struct {
	Name              string  `json:"name,omitempty"`
	Group             string  `json:"group,omitempty"`
	Kind              string  `json:"kind,omitempty"`
	Causes            []Cause `json:"causes,omitempty"`
	RetryAfterSeconds int     `json:"retryAfterSeconds,omitempty"`
}

// Cause is one field's part in a 422.
type Cause struct {
	Reason  string `json:"reason"`
	Message string `json:"message"`
	Field   string `json:"field"`
}

// statusBody is the Status object with its members in the apiserver's order.
type statusBody struct {
	Kind       string   `json:"kind"`
	APIVersion string   `json:"apiVersion"`
	Metadata   struct{} `json:"metadata"`
	Status     string   `json:"status"`
	Message    string   `json:"message"`
	Reason     string   `json:"reason,omitempty"`
	Details    *Details `json:"details,omitempty"`
	Code       int      `json:"code"`
}

// JSON is the Status object, without a trailing newline.
func (s Status) JSON() []byte {
	b, err := json.Marshal(statusBody{Kind: "Status", APIVersion: "v1", Status: "Failure",
		Message: s.Message, Reason: s.Reason, Details: s.Details, Code: s.Code})
	if err != nil {
		panic("apiwire: encode status: " + err.Error()) // cannot happen: strings and ints only
	}
	return b
}

// Write answers with s: its code, a JSON Content-Type and the Status body.
// Headers the caller set before (Retry-After) go with it.
func (s Status) Write(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(s.Code)
	w.Write(append(s.JSON(), '\n'))
}

// Gone is the 410 a resourceVersion older than the server's window gets, as
// an answer or in an ERROR event.
func Gone(message string) Status {
	return Status{Code: http.StatusGone, Reason: "Expired", Message: message}
}

// NotFound is the 404 an unknown path gets: the apiserver's own message, and
// empty details.
func NotFound() Status {
	return Status{Code: http.StatusNotFound, Reason: "NotFound",
		Message: "the server could not find the requested resource", Details: &Details{}}
}

// BadRequest is the 400 a malformed parameter gets.
func BadRequest(message string) Status {
	return Status{Code: http.StatusBadRequest, Reason: "BadRequest", Message: message}
}

// InvalidOption is the 422 a list or watch option the apiserver refuses gets:
// field names the option, reason is the cause's (FieldValueForbidden,
// FieldValueNotSupported, FieldValueInvalid) and message says why.
func InvalidOption(field, reason, message string) Status {
	return Status{Code: http.StatusUnprocessableEntity, Reason: "Invalid",
		Message: `ListOptions.meta.k8s.io "" is invalid: ` + field + ": " + message,
		Details: &Details{Group: "meta.k8s.io", Kind: "ListOptions",
			Causes: []Cause{{Reason: reason, Message: message, Field: field}}}}
}

// ServiceUnavailable is the 503 a request gets when the server cannot serve
// it now: a proxy that cannot reach its upstream, a server shutting down.
func ServiceUnavailable(message string) Status {
	return Status{Code: http.StatusServiceUnavailable, Reason: "ServiceUnavailable", Message: message}
}

// NotAcceptable is the 406 a request gets when it accepts no form the server
// writes.
func NotAcceptable(available string) Status {
	return Status{Code: http.StatusNotAcceptable, Reason: "NotAcceptable",
		Message: "406: Not Acceptable\n\nAvailable representations: " + available, Details: &Details{}}
}
