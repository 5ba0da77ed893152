// Package cache keeps a local copy of a set of Kubernetes objects in step with the
// apiserver: a ListerWatcher fetches and watches them, a Reflector runs the
// list-then-watch loop and applies what it sees to a Store, and an UndeltaStore
// hands the whole current set, sorted by key, to a PushFunc after every change.
//
// All types are generic over the object type, which only has to expose its
// metadata (meta.Object).
package cache
