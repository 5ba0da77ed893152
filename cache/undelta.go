package cache

import (
	"fmt"
	"sync"

	"github.com/podwatch/podwatch/rest/meta"
)

// PushFunc receives the whole current set after a change: objects sorted by key,
// and the resourceVersion that set reflects. The slice is the receiver's to keep;
// the objects are shared and must not be modified.
type PushFunc[T any] func(items []T, resourceVersion string)

// StaleError is a change older than a state the store already pushed. The store
// refuses it (nothing is applied or pushed), so that what a consumer saw never goes
// back in time; a Reflector answers it with a relist.
type StaleError struct {
	Op              string
	ResourceVersion string
	Pushed          string
}

func (e *StaleError) Error() string {
	return fmt.Sprintf("undelta store: %s at resourceVersion %s is older than the pushed state at %s",
		e.Op, e.ResourceVersion, e.Pushed)
}

// UndeltaStore is a Store that calls its PushFunc with the full, sorted content
// after every Add, Update, Delete and Replace. Pushes happen one at a time, in the
// order of the changes, while the store is locked: a PushFunc must not call back
// into the store, and a slow one holds up the writer (the Reflector) behind it.
type UndeltaStore[T meta.Object] struct {
	mu     sync.Mutex
	set    sortedSet[T]
	push   PushFunc[T]
	pushed string // resourceVersion of the last push
}

// NewUndeltaStore returns an empty store keyed by key that pushes to push.
func NewUndeltaStore[T meta.Object](push PushFunc[T], key KeyFunc[T]) *UndeltaStore[T] {
	return &UndeltaStore[T]{set: sortedSet[T]{key: key}, push: push}
}

// Add stores obj and pushes.
func (s *UndeltaStore[T]) Add(obj T) error { return s.change("add", obj, s.set.put) }

// Update stores obj and pushes.
func (s *UndeltaStore[T]) Update(obj T) error { return s.change("update", obj, s.set.put) }

// Delete removes obj and pushes; the deleted object's resourceVersion (the
// deletion's) becomes the pushed one, so a delete moves the version forward too.
func (s *UndeltaStore[T]) Delete(obj T) error { return s.change("delete", obj, s.set.remove) }

func (s *UndeltaStore[T]) change(op string, obj T, apply func(T)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	rv := obj.Meta().ResourceVersion
	if err := s.checkForward(op, rv); err != nil {
		return err
	}
	apply(obj)
	s.pushLocked(rv)
	return nil
}

// Replace swaps the content for items listed at resourceVersion and pushes once.
func (s *UndeltaStore[T]) Replace(items []T, resourceVersion string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.checkForward("replace", resourceVersion); err != nil {
		return err
	}
	s.set.replace(items)
	s.pushLocked(resourceVersion)
	return nil
}

// checkForward refuses a change whose resourceVersion is older than the last push.
// Versions that cannot be compared (a fake server's, or an empty one) are let
// through: the guard is for servers that follow the documented order.
func (s *UndeltaStore[T]) checkForward(op, rv string) error {
	if s.pushed == "" || rv == "" {
		return nil
	}
	if c, err := meta.CompareResourceVersions(rv, s.pushed); err == nil && c < 0 {
		return &StaleError{Op: op, ResourceVersion: rv, Pushed: s.pushed}
	}
	return nil
}

func (s *UndeltaStore[T]) pushLocked(rv string) {
	if rv != "" {
		s.pushed = rv
	}
	if s.push != nil {
		s.push(s.set.list(), s.pushed)
	}
}

// List returns every object, sorted by key.
func (s *UndeltaStore[T]) List() []T {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.set.list()
}

// Get returns the object stored under key.
func (s *UndeltaStore[T]) Get(key string) (T, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.set.get(key)
}

// PushedResourceVersion is the resourceVersion of the last push.
func (s *UndeltaStore[T]) PushedResourceVersion() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pushed
}
