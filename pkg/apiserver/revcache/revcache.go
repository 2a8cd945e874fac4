// Package revcache keeps what the server derives from a stored revision
// of an object (the decoded object, its labels), so that a list, a watch
// event or an update that needs what another request has just derived
// does not decode the stored JSON again.
//
// A stored revision never changes, so an entry never goes stale: it is
// only evicted. The bound is on a size the caller gives each entry (the
// stored bytes of a decoded object, which takes a few times that in
// memory), and eviction is by generation: entries go into the current
// generation; when it holds half the budget it becomes the previous one
// and the one before is dropped. A hit in the previous generation moves
// the entry forward, so what is read again stays, as in an LRU, at the
// cost of one map per generation.
//
// Values are shared by every reader: no one may change one. A caller
// that changes what it gets copies it first.
package revcache

import "sync"

// Key names one stored revision of one object as read through one
// resource. Owner tells apart the resources that read the same bytes
// differently (a custom resource in another version or after its schema
// changed, a converted kind); the server uses its *registry.Resource.
type Key struct {
	Owner    any
	Key      string
	Revision int64
}

// Cache is a bounded cache of values of type V. A nil *Cache caches
// nothing.
type Cache[V any] struct {
	mu       sync.Mutex
	budget   int // across both generations
	cur      map[Key]entry[V]
	curBytes int
	prev     map[Key]entry[V]
}

type entry[V any] struct {
	value V
	size  int
}

// New returns a cache that holds values of sizes adding up to at most
// budget. A budget of zero or less gives a nil cache.
func New[V any](budget int) *Cache[V] {
	if budget <= 0 {
		return nil
	}
	return &Cache[V]{budget: budget, cur: map[Key]entry[V]{}}
}

// Get returns the value kept under k, or derives it with derive and keeps
// it, counted as the size derive gives. The value is shared: callers must
// not change it.
func (c *Cache[V]) Get(k Key, derive func() (V, int, error)) (V, error) {
	if c == nil {
		v, _, err := derive()
		return v, err
	}
	if v, ok := c.Lookup(k); ok {
		return v, nil
	}
	v, size, err := derive()
	if err != nil {
		return v, err
	}
	c.Put(k, size, v)
	return v, nil
}

// Put keeps v under k, counted as size, unless k is already kept. A
// writer that knows what it just stored puts it, so the first reader
// finds it.
func (c *Cache[V]) Put(k Key, size int, v V) {
	// A value larger than a generation's share would evict everything
	// else for a single entry; such values are derived every time.
	if c == nil || size > c.budget/2 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.cur[k]; !ok {
		c.insert(k, entry[V]{value: v, size: size})
	}
}

// Lookup returns the value kept under k, if any, without deriving it.
func (c *Cache[V]) Lookup(k Key) (V, bool) {
	if c == nil {
		var none V
		return none, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.cur[k]; ok {
		return e.value, true
	}
	e, ok := c.prev[k]
	if ok {
		delete(c.prev, k)
		c.insert(k, e)
	}
	return e.value, ok
}

// insert puts e into the current generation, first starting a new one
// when e would take it past half the budget.
func (c *Cache[V]) insert(k Key, e entry[V]) {
	if c.curBytes+e.size > c.budget/2 {
		c.prev, c.cur, c.curBytes = c.cur, make(map[Key]entry[V], len(c.cur)), 0
	}
	c.cur[k] = e
	c.curBytes += e.size
}

// Len is the number of values held.
func (c *Cache[V]) Len() int {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.cur) + len(c.prev)
}

// Range calls f with every value held, for checks that they are unchanged.
func (c *Cache[V]) Range(f func(Key, V)) {
	if c == nil {
		return
	}
	c.mu.Lock()
	held := make(map[Key]V, len(c.cur)+len(c.prev))
	for _, gen := range []map[Key]entry[V]{c.prev, c.cur} {
		for k, e := range gen {
			held[k] = e.value
		}
	}
	c.mu.Unlock()
	for k, v := range held {
		f(k, v)
	}
}
