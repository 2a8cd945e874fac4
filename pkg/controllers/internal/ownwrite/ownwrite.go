// Package ownwrite remembers, per object, the version a controller last
// wrote the status of, so that a pass reading the informer cache before
// that write has arrived in it does not write again.
//
// Such a write would be refused anyway: it carries the old
// resourceVersion, so the server answers 409 Conflict and the driver
// retries. Worse, under a burst of events (ten pods of a ReplicaSet
// turning Ready one after the other) every event makes a pass that tries
// a status write of its own. Waiting instead coalesces them: the cache
// catching up with the write is itself an update event, which enqueues
// the object again, and that one pass writes the status the events
// accumulated. Level-triggered semantics stay: a skipped pass always has
// a later one coming (the event of the write it waits for).
package ownwrite

import "sync"

// Tracker holds, per key, the resourceVersion a status write was based
// on, until the cache shows a newer one.
type Tracker struct {
	mu sync.Mutex
	// basedOn maps a key to the resourceVersion the object had in the
	// cache when its status was last written successfully.
	basedOn map[string]string
}

// New returns an empty Tracker.
func New() *Tracker { return &Tracker{basedOn: map[string]string{}} }

// Wrote records a successful write of key's object made from the cached
// version basedOnRV, which the server answered with version writtenRV. A
// write that changed nothing (the same version back) makes no event, so
// nothing is recorded for it: a pass must never wait for an event that
// will not come.
func (t *Tracker) Wrote(key, basedOnRV, writtenRV string) {
	if writtenRV == basedOnRV || basedOnRV == "" {
		return
	}
	t.mu.Lock()
	t.basedOn[key] = basedOnRV
	t.mu.Unlock()
}

// Pending reports whether the cache still shows the version a write of
// key's object was based on (cachedRV): that write has not arrived yet,
// and its arrival will enqueue the key. Once the cache has moved on, the
// entry is dropped and Pending is false.
func (t *Tracker) Pending(key, cachedRV string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	rv, ok := t.basedOn[key]
	if !ok {
		return false
	}
	if rv == cachedRV {
		return true
	}
	delete(t.basedOn, key)
	return false
}

// Forget drops key (its object is gone).
func (t *Tracker) Forget(key string) {
	t.mu.Lock()
	delete(t.basedOn, key)
	t.mu.Unlock()
}

// Len is how many writes are waiting for the cache (for tests).
func (t *Tracker) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.basedOn)
}
