// Package ownwrite remembers, per object, the resourceVersion of a
// controller's last status write until the informer cache shows it, so
// that a pass reading the cache before that write has arrived does not act
// on an object older than its own write.
//
// Acting anyway goes wrong in two ways. A status write made from the old
// version carries its resourceVersion, so the server answers 409 Conflict
// and the driver retries; under a burst of events (ten pods of a ReplicaSet
// turning Ready one after the other) every event makes a pass that tries a
// write of its own. And a pass can miscount: a Job's pass that read the Job
// from before its last status write would not see the pods that write
// counted, and would replace them a second time. Waiting costs no poll and
// keeps the loop level-triggered: the write's own watch event queues the
// object again, and that one pass acts on everything that happened.
//
// resourceVersions are compared as numbers, which miniapi's and etcd's
// are; a write whose version is not a number (a fake client's) is not
// remembered.
package ownwrite

import (
	"strconv"
	"sync"
)

// Tracker holds, per key, the resourceVersion of the last status write
// until the cache shows it or a newer one.
type Tracker struct {
	mu      sync.Mutex
	written map[string]uint64
}

// New returns an empty Tracker.
func New() *Tracker { return &Tracker{written: map[string]uint64{}} }

// Wrote records a successful write of key's object that the server
// answered with version writtenRV.
func (t *Tracker) Wrote(key, writtenRV string) {
	v, err := strconv.ParseUint(writtenRV, 10, 64)
	if err != nil {
		return
	}
	t.mu.Lock()
	t.written[key] = v
	t.mu.Unlock()
}

// Pending reports whether cachedRV, the version of key's object in the
// cache, is older than the last write: that write has not arrived yet, and
// its arrival will queue the key again. Once the cache has caught up, the
// entry is dropped. A write that changed nothing answers the version the
// cache already has, so it is never waited for.
func (t *Tracker) Pending(key, cachedRV string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	want, ok := t.written[key]
	if !ok {
		return false
	}
	if v, err := strconv.ParseUint(cachedRV, 10, 64); err == nil && v < want {
		return true
	}
	delete(t.written, key)
	return false
}

// Forget drops key (its object is gone).
func (t *Tracker) Forget(key string) {
	t.mu.Lock()
	delete(t.written, key)
	t.mu.Unlock()
}

// Len is how many writes are waiting for the cache (for tests).
func (t *Tracker) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.written)
}
