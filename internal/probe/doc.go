// Package probe measures how stale a node's pod watch is, by writing: every
// interval it patches a timestamp annotation onto a canary pod bound to the
// node and times the annotation's arrival on podwatch's own watch of the
// node's pods (a cache.Reflector over rest, as `podwatch watch` runs it).
//
// Both ends read the local wall clock: a probe's lag runs from just before
// its PATCH is sent to the moment the reflector applies the event (or the
// relisted state) that carries its annotation. That is a measurement, with
// the local clock's resolution, not a bound anything is held to.
//
// The lag is told in resourceVersions too (see Sample.RVLag): how many
// versions the cluster had moved past the watch when the patch was
// acknowledged.
//
// The probe owns its canary: it creates it when absent (adopting one a
// probe before it left behind), and deletes it when it ends, on a
// cancelled context too.
package probe
