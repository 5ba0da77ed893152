// Package source holds the kubelet's three pod sources, each feeding one
// podconfig channel: API (the pods bound to this node, listed and watched from
// the apiserver), File (static pod manifests in a folder or a file) and HTTP (a
// manifest URL). Each source's Run blocks until its ctx ends (API's also
// until its graceful Stop) and sends whole states (podconfig.SET) only,
// selecting on ctx.Done for every send; the caller starts it on a goroutine
// and waits for it.
//
// Static pods (file and http) get the kubelet's defaults: see the File and HTTP
// docs. As the kubelet does, they refuse a static pod that names an API object
// (a service account, secret, config map, resource claim or API-backed
// volume), reporting an *APIReferenceError. Problems that do not stop a source (an invalid manifest, an HTTP error)
// go to the Report function of its options and the source carries on.
package source
