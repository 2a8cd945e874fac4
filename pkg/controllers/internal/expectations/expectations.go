// Package expectations remembers the writes a controller has made but not
// yet seen come back through its informer.
//
// A controller decides from its cache. Right after it created three pods,
// the cache may not show them yet; a second reconcile would count zero pods
// and create three more. So before writing, the controller records what it
// expects (three creations, or the deletion of these pod keys); the informer
// handlers lower the count as the events arrive; and the controller only
// acts again once the expectations are satisfied — or have expired, so that
// a lost event can never wedge it forever.
package expectations

import (
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/utils/clock"
)

// TTL is how long expectations are trusted before the controller acts anyway,
// as kube-controller-manager's ExpectationsTimeout.
const TTL = 5 * time.Minute

// Expectations tracks pending creations (a count) and deletions (the keys of
// the objects being deleted, so a delete seen twice counts once) per owner.
// The zero value is not usable; call New.
type Expectations struct {
	clock clock.PassiveClock
	mu    sync.Mutex
	// byOwner holds, per owner key, what has not been observed yet.
	byOwner map[string]*pending
}

type pending struct {
	adds int
	dels sets.Set[string]
	// since is when the expectations were set; past TTL they are ignored.
	since time.Time
}

// New returns empty Expectations using clk for expiry.
func New(clk clock.PassiveClock) *Expectations {
	return &Expectations{clock: clk, byOwner: map[string]*pending{}}
}

// ExpectCreations records that n creations for owner are in flight.
func (e *Expectations) ExpectCreations(owner string, n int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	p := e.get(owner)
	p.adds += n
	p.since = e.clock.Now()
}

// ExpectDeletions records that the objects with keys are being deleted.
func (e *Expectations) ExpectDeletions(owner string, keys []string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	p := e.get(owner)
	p.dels.Insert(keys...)
	p.since = e.clock.Now()
}

// CreationObserved lowers owner's pending creations by one (also used when a
// creation failed and will never be observed).
func (e *Expectations) CreationObserved(owner string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if p, ok := e.byOwner[owner]; ok && p.adds > 0 {
		p.adds--
	}
}

// DeletionObserved records that key is gone (or going) for owner.
func (e *Expectations) DeletionObserved(owner, key string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if p, ok := e.byOwner[owner]; ok {
		p.dels.Delete(key)
	}
}

// Satisfied reports whether owner may act on its cache again: nothing is
// pending, or what is pending has waited longer than TTL.
func (e *Expectations) Satisfied(owner string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	p, ok := e.byOwner[owner]
	if !ok {
		return true
	}
	return (p.adds <= 0 && p.dels.Len() == 0) || e.clock.Since(p.since) > TTL
}

// Pending returns owner's outstanding creations and deletions (for logs).
func (e *Expectations) Pending(owner string) (adds, dels int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if p, ok := e.byOwner[owner]; ok {
		return p.adds, p.dels.Len()
	}
	return 0, 0
}

// Forget drops owner's expectations, when owner is deleted or before a
// fresh decision replaces them.
func (e *Expectations) Forget(owner string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.byOwner, owner)
}

func (e *Expectations) get(owner string) *pending {
	p, ok := e.byOwner[owner]
	if !ok {
		p = &pending{dels: sets.New[string]()}
		e.byOwner[owner] = p
	}
	return p
}
