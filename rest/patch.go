package rest

import "net/http"

// ContentTypeMergePatch is the media type of a JSON merge patch (RFC 7386):
// members given replace the object's, null removes one, objects merge.
const ContentTypeMergePatch = "application/merge-patch+json"

// MergePatch makes the request a PATCH whose body is patch, a JSON merge
// patch. The request keeps patch (it is sent again on a retry): the caller
// must not change it. A merge patch of metadata.annotations changes only the
// annotations it names, so it needs no resourceVersion and never conflicts
// with other writers of the object.
func (r *Request) MergePatch(patch []byte) *Request {
	r.verb, r.body, r.bodyType = http.MethodPatch, patch, ContentTypeMergePatch
	return r
}
