package cache

import (
	"slices"
	"strings"
	"sync"

	"github.com/podwatch/podwatch/rest/meta"
)

// KeyFunc names an object uniquely within a store.
type KeyFunc[T any] func(obj T) string

// MetaNamespaceKey is "namespace/name", or "name" for objects without a namespace.
func MetaNamespaceKey[T meta.Object](obj T) string {
	m := obj.Meta()
	if m.Namespace == "" {
		return m.Name
	}
	return m.Namespace + "/" + m.Name
}

// Store is what a Reflector writes to. Implementations are safe for concurrent use.
type Store[T any] interface {
	Add(obj T) error
	Update(obj T) error
	Delete(obj T) error
	// Replace swaps the whole content for items, which the server listed at
	// resourceVersion, in one step.
	Replace(items []T, resourceVersion string) error
	List() []T
	Get(key string) (T, bool)
}

// entry is one stored object under its key.
type entry[T any] struct {
	key string
	obj T
}

// sortedSet keeps objects sorted by key in one slice, so listing them in order
// needs no sort and a lookup is a binary search. Not safe for concurrent use.
type sortedSet[T any] struct {
	key     KeyFunc[T]
	entries []entry[T]
}

func (s *sortedSet[T]) find(key string) (int, bool) {
	return slices.BinarySearchFunc(s.entries, key, func(e entry[T], k string) int {
		return strings.Compare(e.key, k)
	})
}

// put adds or replaces obj.
func (s *sortedSet[T]) put(obj T) {
	k := s.key(obj)
	i, ok := s.find(k)
	if ok {
		s.entries[i].obj = obj
		return
	}
	s.entries = slices.Insert(s.entries, i, entry[T]{key: k, obj: obj})
}

// remove deletes obj's key; a missing key is not an error, as a DELETED event
// may follow a relist that already dropped the object.
func (s *sortedSet[T]) remove(obj T) {
	if i, ok := s.find(s.key(obj)); ok {
		s.entries = slices.Delete(s.entries, i, i+1)
	}
}

func (s *sortedSet[T]) replace(items []T) {
	entries := make([]entry[T], 0, len(items))
	for _, obj := range items {
		entries = append(entries, entry[T]{key: s.key(obj), obj: obj})
	}
	slices.SortStableFunc(entries, func(a, b entry[T]) int { return strings.Compare(a.key, b.key) })
	// A list never holds one key twice; if it does, the later item wins, as it
	// would had the items arrived as events.
	out := entries[:0]
	for _, e := range entries {
		if n := len(out); n > 0 && out[n-1].key == e.key {
			out[n-1] = e
			continue
		}
		out = append(out, e)
	}
	s.entries = out
}

func (s *sortedSet[T]) list() []T {
	out := make([]T, len(s.entries))
	for i, e := range s.entries {
		out[i] = e.obj
	}
	return out
}

func (s *sortedSet[T]) get(key string) (T, bool) {
	if i, ok := s.find(key); ok {
		return s.entries[i].obj, true
	}
	var zero T
	return zero, false
}

// ThreadSafeStore is a Store guarded by a mutex; List returns objects sorted by key.
type ThreadSafeStore[T any] struct {
	mu  sync.RWMutex
	set sortedSet[T]
}

// NewStore returns an empty store keyed by key.
func NewStore[T any](key KeyFunc[T]) *ThreadSafeStore[T] {
	return &ThreadSafeStore[T]{set: sortedSet[T]{key: key}}
}

// Add stores obj, replacing any object with its key.
func (s *ThreadSafeStore[T]) Add(obj T) error { return s.Update(obj) }

// Update stores obj, replacing any object with its key.
func (s *ThreadSafeStore[T]) Update(obj T) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.set.put(obj)
	return nil
}

// Delete removes the object with obj's key, if any.
func (s *ThreadSafeStore[T]) Delete(obj T) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.set.remove(obj)
	return nil
}

// Replace swaps the content for items.
func (s *ThreadSafeStore[T]) Replace(items []T, _ string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.set.replace(items)
	return nil
}

// List returns every object, sorted by key.
func (s *ThreadSafeStore[T]) List() []T {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.set.list()
}

// Get returns the object stored under key.
func (s *ThreadSafeStore[T]) Get(key string) (T, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.set.get(key)
}
