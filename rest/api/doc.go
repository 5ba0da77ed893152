// Package api holds podwatch's pod type: a core/v1 Pod typed where podwatch
// acts on it (metadata, node name, containers' names and images, tolerations,
// phase and IPs) and lossless everywhere else. Every member it does not model,
// at any level, is kept verbatim and written back, so a pod decoded and encoded
// again compares equal, as JSON, to what the server sent.
//
// Codec decodes pods: hand it to rest.DecodeList, watch.NewDecoder or
// cache.NewListWatchFromClient. Its JSON decoder is DecodePod, and its
// protobuf one, for the kubelet's format, DecodePodProtobuf: it reads the typed fields straight from the wire and keeps every other field
// in its wire form, checked against the schema as it is read, so the same pod
// decodes to the same Pod and writes the same JSON from either format; the
// kept fields become JSON only when the pod is written. A decoded pod keeps nothing
// of the bytes it was decoded from, and large unmodelled members equal to those
// of other pods are shared, not copied, so a store of a node's pods holds each
// repeated member once. Pods are read-only once stored; DeepCopy gives one to
// change.
//
// Other kinds are written the same way with public pieces (meta.ObjectMeta,
// jsonx.Reader and jsonx.Writer): the cache package's examples show a ConfigMap.
package api
