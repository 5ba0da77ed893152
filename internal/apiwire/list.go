package apiwire

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
)

// ListMeta is a list's metadata member.
type ListMeta struct {
	ResourceVersion    string `json:"resourceVersion"`
	Continue           string `json:"continue,omitempty"`
	RemainingItemCount *int64 `json:"remainingItemCount,omitempty"`
}

// ListHead opens a list body of kind (PodList) up to its items' opening
// bracket; the items follow, separated by commas, then ListTail.
func ListHead(kind string, md ListMeta) []byte {
	mdJSON, err := json.Marshal(md)
	if err != nil {
		panic("apiwire: encode list metadata: " + err.Error()) // cannot happen: strings and ints only
	}
	k, _ := json.Marshal(kind)
	var b bytes.Buffer
	b.WriteString(`{"kind":`)
	b.Write(k)
	b.WriteString(`,"apiVersion":"v1","metadata":`)
	b.Write(mdJSON)
	b.WriteString(`,"items":[`)
	return b.Bytes()
}

// ListTail closes a list body ListHead opened.
const ListTail = "]}"

// ListPage is a whole list body: the head, items (each a JSON object) and the
// tail.
func ListPage(kind string, md ListMeta, items [][]byte) []byte {
	b := ListHead(kind, md)
	for i, it := range items {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, it...)
	}
	return append(b, ListTail...)
}

// Continue is what a continue token carries: the resourceVersion of the state
// being paged (every page comes from that one state) and the key of the last
// item sent, after which the next page starts.
type Continue struct {
	RV    string `json:"rv"`
	After string `json:"after"`
}

// Encode makes the opaque token a client sends back.
func (c Continue) Encode() string {
	b, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(b)
}

// ErrBadContinue says a continue token is not one the server made.
var ErrBadContinue = errors.New("continue key is not valid")

// BadContinue is the 400 a continue token the server cannot read gets.
func BadContinue(err error) Status {
	return BadRequest("invalid continue token: " + err.Error())
}

// DecodeContinue reads a token Encode made.
func DecodeContinue(token string) (Continue, error) {
	var c Continue
	b, err := base64.RawURLEncoding.DecodeString(token)
	if err == nil {
		err = json.Unmarshal(b, &c)
	}
	if err != nil || c.RV == "" {
		return Continue{}, fmt.Errorf("%w: %q", ErrBadContinue, token)
	}
	return c, nil
}
