package model

import (
	"encoding/json"
	"net/http"
	"testing"
	"testing/synctest"
)

// The model answers outside clients as the apiserver does: discovery for
// pods, and the apiserver's Status for what it refuses.
func TestAnswersAsTheAPIServer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := fixture(t, Options{})
		c := &http.Client{Transport: s.Transport()}
		defer c.CloseIdleConnections()
		for _, tc := range []struct {
			path      string
			code      int
			kind, why string
		}{
			{"/api", 200, "APIVersions", ""},
			{"/api/v1", 200, "APIResourceList", ""},
			{"/apis", 200, "APIGroupList", ""},
			{"/api/v1/nodes", 404, "Status", "NotFound"},
			{"/api/v1/pods?resourceVersion=abc", 400, "Status", "BadRequest"},
			{"/api/v1/pods?limit=x", 400, "Status", "BadRequest"},
			{"/api/v1/pods?fieldSelector=spec.foo%3Dbar", 400, "Status", "BadRequest"},
			{"/api/v1/pods?fieldSelector=status.phase%3DRunning", 400, "Status", "BadRequest"},
			{"/api/v1/pods?watch=true&resourceVersionMatch=NotOlderThan", 422, "Status", "Invalid"},
		} {
			resp, err := c.Get(URL + tc.path)
			if err != nil {
				t.Fatal(err)
			}
			var doc struct{ Kind, Reason string }
			err = json.NewDecoder(resp.Body).Decode(&doc)
			resp.Body.Close()
			if err != nil || resp.StatusCode != tc.code || doc.Kind != tc.kind || doc.Reason != tc.why {
				t.Errorf("%s: got %d %+v (%v), want %d kind %s reason %q", tc.path, resp.StatusCode, doc, err, tc.code, tc.kind, tc.why)
			}
		}
	})
}
