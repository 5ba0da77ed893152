package check

// The versions and gates each check depends on, as Kubernetes documents
// them.
const (
	sinceAll        = "every version"
	sinceRVMatch    = "Kubernetes 1.19 (resourceVersionMatch)"
	sincePaging     = "Kubernetes 1.9 (APIListChunking, GA 1.29)"
	sinceBookmarks  = "Kubernetes 1.15 (WatchBookmark, GA 1.17)"
	sinceWatchList  = "Kubernetes 1.27 (WatchList gate: alpha 1.27, beta 1.32, client default on 1.35)"
	sinceProtobuf   = "every version for built-in types (not custom resources)"
	sinceCBOR       = "Kubernetes 1.32 (CBORServingAndStorage gate; alpha and off by default in 1.37)"
	sinceConsistent = "every version (served from the watch cache since 1.31: ConsistentListFromCache)"
)

// battery is every check, in the order Run runs them: a check runs after
// those it builds on, and list-continue-expired, the longest, last.
var battery = []Check{
	{Name: "list-consistent", run: checkListConsistent, Since: sinceConsistent,
		Proves: "a list without resourceVersion answers the most recent state under a comparable resourceVersion no item is newer than"},
	{Name: "list-rv-zero", run: checkListRVZero, Since: sinceAll, After: []string{"list-consistent"},
		Proves: `a list at resourceVersion "0" (any state, maybe cached) is served under a real resourceVersion`},
	{Name: "list-not-older-than", run: checkListNotOlderThan, Since: sinceRVMatch, After: []string{"list-consistent"},
		Proves: "resourceVersionMatch=NotOlderThan answers a state at least as new as asked"},
	{Name: "list-exact", run: checkListExact, Since: sinceRVMatch, After: []string{"list-consistent"},
		Proves: "resourceVersionMatch=Exact answers exactly the state at that version"},
	{Name: "list-paging", run: checkListPaging, Since: sincePaging, After: []string{"list-consistent"},
		Proves: "limit and continue page one snapshot: one resourceVersion across pages, no item twice, a token until the last page"},
	{Name: "watch-from-rv", run: checkWatchFromRV, Since: sinceAll, After: []string{"list-consistent"},
		Proves: "a watch from a list's resourceVersion carries only the changes after it, every one of them"},
	{Name: "watch-path-forms", run: checkWatchPathForms, Since: sinceAll, After: []string{"list-consistent"},
		Proves: "both ?watch=true and the legacy /watch/ path prefix open a watch"},
	{Name: "watch-timeout", run: checkWatchTimeout, Since: sinceAll, After: []string{"list-consistent"},
		Proves: "timeoutSeconds is honoured: the server ends the watch cleanly near that time"},
	{Name: "watch-rv-order", run: checkWatchRVOrder, Since: sinceAll, After: []string{"list-consistent"},
		Proves: "resourceVersions never go back on one watch stream"},
	{Name: "watch-too-old-410", run: checkWatchTooOld, Since: sinceAll, After: []string{"list-consistent"},
		Proves: "a watch from an old version gets 410 (answer or ERROR event) once the server no longer has it, and never the current state in its place"},
	{Name: "bookmark-before-timeout", run: checkBookmarkBeforeTimeout, Since: sinceBookmarks, After: []string{"list-consistent"},
		Proves: "a watch that asks for bookmarks and carries changes gets one before its timeout, so the client resumes from a recent version"},
	{Name: "watch-list-initial-events-end", run: checkWatchListEnd, Since: sinceWatchList, After: []string{"list-consistent"},
		Proves: "a streaming watch list ends its initial ADDED events with the bookmark annotated k8s.io/initial-events-end, or is refused clearly"},
	{Name: "watch-list-rv", run: checkWatchListRV, Since: sinceWatchList, After: []string{"watch-list-initial-events-end"},
		Proves: "the initial-events-end bookmark is at a version not older than asked, nor than any initial event"},
	{Name: "watch-list-stays-open", run: checkWatchListStaysOpen, Since: sinceWatchList, After: []string{"watch-list-initial-events-end"},
		Proves: "after the initial-events-end bookmark the stream stays open as a watch and carries later changes"},
	{Name: "bookmark-metadata-only", run: checkBookmarkMetadataOnly, Since: sinceBookmarks,
		Proves: "a bookmark carries only metadata.resourceVersion (and the initial-events-end annotation)"},
	{Name: "framing-stream", run: checkFramingStream, Since: sinceAll,
		Proves: "a watch answer streams: chunked over HTTP/1.1, DATA frames over HTTP/2"},
	{Name: "framing-one-event-per-object", run: checkFramingOneEventPerObject, Since: sinceAll,
		Proves: "each JSON value on a watch stream is exactly one event of a type and an object"},
	{Name: "content-type-json", run: checkContentTypeJSON, Since: sinceAll,
		Proves: "asked for JSON, lists and watches answer Content-Type application/json"},
	{Name: "content-type-protobuf", run: checkContentTypeProtobuf, Since: sinceProtobuf,
		Proves: "asked for protobuf, a server that offers it answers a readable protobuf list and watch stream"},
	{Name: "content-type-cbor", run: checkContentTypeCBOR, Since: sinceCBOR,
		Proves: "asked for CBOR, a server that offers it answers a readable CBOR list and a watch as a CBOR sequence"},
	{Name: "error-status-body", run: checkErrorStatusBody, Since: sinceAll,
		Proves: "a refused request gets a Status body whose code is the HTTP status"},
	{Name: "list-continue-expired", run: checkListContinueExpired, Since: sincePaging, After: []string{"list-paging"}, waits: true,
		Proves: "a continue token whose snapshot the server no longer has is answered 410, never with a page (needs --write)"},
	{Name: "error-retry-after-429", run: checkRetryAfter, Since: sinceAll,
		Proves: "every 429 the run met carried Retry-After"},
}
