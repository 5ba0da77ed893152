// Package meta holds the Kubernetes API metadata that podwatch's public packages
// speak in: object metadata, list metadata, and the Status the apiserver answers
// with when something fails.
//
// ObjectMeta and ListMeta are lossless: members podwatch does not model (managedFields,
// ownerReferences, finalizers, anything a newer server adds) are kept verbatim and
// written back by WriteJSON, so an object decoded and encoded again compares equal to
// what the server sent.
package meta
