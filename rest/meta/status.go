package meta

import (
	"fmt"

	jsoniter "github.com/json-iterator/go"
)

// Status is the apiserver's account of a failed request, sent as the body of a
// non-2xx answer or as the object of a watch ERROR event.
type Status struct {
	TypeMeta `json:",inline"`
	Metadata ListMeta       `json:"metadata"`
	Status   string         `json:"status,omitempty"` // "Success" or "Failure"
	Message  string         `json:"message,omitempty"`
	Reason   StatusReason   `json:"reason,omitempty"`
	Details  *StatusDetails `json:"details,omitempty"`
	Code     int32          `json:"code,omitempty"`
}

// StatusReason is the machine-readable reason of a Status, such as "Expired".
type StatusReason string

// The reasons podwatch acts on.
const (
	ReasonExpired         StatusReason = "Expired"
	ReasonGone            StatusReason = "Gone"
	ReasonTooManyRequests StatusReason = "TooManyRequests"
	ReasonNotFound        StatusReason = "NotFound"
	ReasonForbidden       StatusReason = "Forbidden"
	ReasonUnauthorized    StatusReason = "Unauthorized"
)

// StatusDetails names what a Status is about.
type StatusDetails struct {
	Name              string        `json:"name,omitempty"`
	Group             string        `json:"group,omitempty"`
	Kind              string        `json:"kind,omitempty"`
	UID               string        `json:"uid,omitempty"`
	Causes            []StatusCause `json:"causes,omitempty"`
	RetryAfterSeconds int32         `json:"retryAfterSeconds,omitempty"`
}

// StatusCause is one cause of a failure.
type StatusCause struct {
	Type    string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
	Field   string `json:"field,omitempty"`
}

var statusJSON = jsoniter.ConfigCompatibleWithStandardLibrary

// ParseStatus decodes data as a Status. It fails unless data is a JSON object of kind
// Status (or one carrying a code), so an HTML page or some other object is not
// mistaken for one. Its strings keep the bytes sent, invalid UTF-8 included
// (json-iterator's reading), where the object readers of jsonx read U+FFFD.
func ParseStatus(data []byte) (*Status, error) {
	var s Status
	if err := statusJSON.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("decode Status: %w", err)
	}
	if s.Kind != "Status" && s.Code == 0 {
		return nil, fmt.Errorf("decode Status: object is of kind %q, not Status", s.Kind)
	}
	return &s, nil
}
