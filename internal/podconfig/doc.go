// Package podconfig merges the pods a kubelet learns from its sources (the
// apiserver, static manifest files, a manifest URL) into one stream of PodUpdates,
// the way the kubelet's pod config does.
//
// Each source sends whole states (SET) or incremental changes (ADD, UPDATE,
// DELETE, REMOVE) on its own channel, obtained from PodConfig.Channel. PodConfig
// keeps the current pods of every source keyed by UID, stamps them with the
// kubernetes.io/config.source and kubernetes.io/config.seen annotations, works out
// what changed, and publishes that on Updates in one of three notification modes
// (see Mode). As in the kubelet, those two annotations and
// kubernetes.io/config.mirror are its own: a change to them alone is no change,
// and a stored pod keeps the values it had. The sources themselves live in
// package source.
//
// Pods handed out on Updates are PodConfig's own copies, never the objects a
// source sent, and they are shared between updates: treat them as read-only and
// DeepCopy one before changing it.
package podconfig
