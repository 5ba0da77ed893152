// Package table makes the meta.k8s.io Table that kubectl asks for when it
// prints pods (Accept: application/json;as=Table;v=v1;g=meta.k8s.io), from
// the pods' JSON as podwatch's servers hold it.
//
// A real kube-apiserver prints each pod with its own pod printer and sends
// the rows; kubectl only lays them out. A server that answers plain JSON
// instead leaves kubectl with NAME and AGE. So that kubectl's columns read
// the same through podwatch's servers as against the apiserver, this package
// derives every cell the way the v1.37 printer does: READY as ready out of
// total containers (sidecar init containers counted), STATUS from the phase,
// the pod's reason and its containers' and init containers' states
// (ContainerCreating, CrashLoopBackOff, Init:1/2, Completed, Terminating,
// Unknown for a pod on a lost node), RESTARTS with how long ago the last
// container ended, AGE from the creation time, and the wide columns (IP,
// NODE, NOMINATED NODE, READINESS GATES), which the apiserver always sends
// and kubectl shows with -o wide.
//
// The body is the apiserver's: the Table's kind and version, the list's
// metadata, the column definitions (names, types, formats and priorities
// as the apiserver gives them; the descriptions are podwatch's own words,
// and kubectl prints none of them), and a row per pod carrying the pod as
// includeObject asks: its metadata as a PartialObjectMetadata (the
// default), the whole pod, or nothing.
//
// A pod missing members prints as the apiserver prints its zero values;
// a member of the wrong type is read as missing. Only a document that is
// not JSON, or not a pod, is refused, with an error.
package table
