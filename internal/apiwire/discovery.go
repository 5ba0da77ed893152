package apiwire

import (
	"encoding/json"
	"net/http"
	"strings"
)

// Discovery answers, for a server that serves pods only: the core group with
// one version, v1, holding pods (namespaced; get, list and watch), and no
// named groups. Shapes are the apiserver's: /api an APIVersions, /api/v1 an
// APIResourceList, /apis an APIGroupList, and aggregated discovery (an
// APIGroupDiscoveryList, apidiscovery.k8s.io/v2) at /api and /apis for a
// client whose Accept asks for it first. Like a v1.37 apiserver, v2beta1 is
// not served: a client asking only for it gets the plain form.

// aggregatedV2 is the media type of aggregated discovery a client asks for
// and the answer's Content-Type.
const aggregatedV2 = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"

var podVerbs = []string{"get", "list", "watch"}

type (
	apiVersions struct {
		Kind                       string           `json:"kind"`
		Versions                   []string         `json:"versions"`
		ServerAddressByClientCIDRs []serverByClient `json:"serverAddressByClientCIDRs"`
	}
	serverByClient struct {
		ClientCIDR    string `json:"clientCIDR"`
		ServerAddress string `json:"serverAddress"`
	}
	apiResourceList struct {
		Kind         string        `json:"kind"`
		GroupVersion string        `json:"groupVersion"`
		Resources    []apiResource `json:"resources"`
	}
	apiResource struct {
		Name         string   `json:"name"`
		SingularName string   `json:"singularName"`
		Namespaced   bool     `json:"namespaced"`
		Kind         string   `json:"kind"`
		Verbs        []string `json:"verbs"`
		ShortNames   []string `json:"shortNames,omitempty"`
		Categories   []string `json:"categories,omitempty"`
	}
	apiGroupList struct {
		Kind       string `json:"kind"`
		APIVersion string `json:"apiVersion"`
		Groups     []any  `json:"groups"`
	}
	discoveryList struct {
		Kind       string           `json:"kind"`
		APIVersion string           `json:"apiVersion"`
		Metadata   struct{}         `json:"metadata"`
		Items      []discoveryGroup `json:"items"`
	}
	discoveryGroup struct {
		Metadata struct {
			Name string `json:"name,omitempty"`
		} `json:"metadata"`
		Versions []discoveryVersion `json:"versions"`
	}
	discoveryVersion struct {
		Version   string              `json:"version"`
		Resources []discoveryResource `json:"resources"`
		Freshness string              `json:"freshness"`
	}
	discoveryResource struct {
		Resource         string   `json:"resource"`
		ResponseKind     gvk      `json:"responseKind"`
		Scope            string   `json:"scope"`
		SingularResource string   `json:"singularResource"`
		Verbs            []string `json:"verbs"`
		ShortNames       []string `json:"shortNames,omitempty"`
		Categories       []string `json:"categories,omitempty"`
	}
	gvk struct {
		Group   string `json:"group"`
		Version string `json:"version"`
		Kind    string `json:"kind"`
	}
)

// ServeDiscovery answers r if it asks for discovery (or the version), and
// reports whether it did.
func ServeDiscovery(w http.ResponseWriter, r *http.Request) bool {
	if r.Method != http.MethodGet {
		return false
	}
	aggregated := wantsAggregated(r.Header.Get("Accept"))
	var body any
	switch r.URL.Path {
	case "/api", "/api/":
		body = apiVersions{Kind: "APIVersions", Versions: []string{"v1"},
			ServerAddressByClientCIDRs: []serverByClient{{ClientCIDR: "0.0.0.0/0", ServerAddress: r.Host}}}
		if aggregated {
			body = coreDiscovery()
		}
	case "/api/v1", "/api/v1/":
		body = apiResourceList{Kind: "APIResourceList", GroupVersion: "v1", Resources: []apiResource{{
			Name: "pods", SingularName: "pod", Namespaced: true, Kind: "Pod", Verbs: podVerbs,
			ShortNames: []string{"po"}, Categories: []string{"all"}}}}
	case "/apis", "/apis/":
		body = apiGroupList{Kind: "APIGroupList", APIVersion: "v1", Groups: []any{}}
		if aggregated {
			body = discoveryList{Kind: "APIGroupDiscoveryList", APIVersion: "apidiscovery.k8s.io/v2", Items: []discoveryGroup{}}
		}
	case "/version", "/version/":
		body = map[string]string{"major": "1", "minor": "37", "gitVersion": "v1.37.0-podwatch", "platform": "podwatch"}
	default:
		return false
	}
	b, err := json.Marshal(body)
	if err != nil {
		panic("apiwire: encode discovery: " + err.Error()) // cannot happen: plain types only
	}
	ct := "application/json"
	if aggregated && r.URL.Path != "/api/v1" && r.URL.Path != "/api/v1/" && !strings.HasPrefix(r.URL.Path, "/version") {
		ct = aggregatedV2
	}
	w.Header().Set("Content-Type", ct)
	w.WriteHeader(http.StatusOK)
	w.Write(b)
	return true
}

func coreDiscovery() discoveryList {
	return discoveryList{Kind: "APIGroupDiscoveryList", APIVersion: "apidiscovery.k8s.io/v2", Items: []discoveryGroup{{
		Versions: []discoveryVersion{{Version: "v1", Freshness: "Current", Resources: []discoveryResource{{
			Resource: "pods", ResponseKind: gvk{Kind: "Pod"}, Scope: "Namespaced", SingularResource: "pod",
			Verbs: podVerbs, ShortNames: []string{"po"}, Categories: []string{"all"}}}}}}}}
}

// wantsAggregated reports whether the first media type of accept that the
// server can write is aggregated discovery v2: the apiserver honours the
// client's order, and writes v2 only.
func wantsAggregated(accept string) bool {
	for _, part := range strings.Split(accept, ",") {
		media, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		media = strings.ToLower(strings.TrimSpace(media))
		switch {
		case media == "application/json" && params == "":
			return false
		case media == "application/json" && hasParams(params, "g=apidiscovery.k8s.io", "v=v2", "as=APIGroupDiscoveryList"):
			return true
		case media == "*/*" || media == "application/*":
			return false
		}
	}
	return false
}

// hasParams reports whether a media type's parameters include each of want,
// in any order.
func hasParams(params string, want ...string) bool {
	have := map[string]bool{}
	for _, p := range strings.Split(params, ";") {
		have[strings.TrimSpace(p)] = true
	}
	for _, w := range want {
		if !have[w] {
			return false
		}
	}
	return true
}
