package endpointslice

import (
	"sync"

	discoveryv1 "k8s.io/api/discovery/v1"
)

// writtenSlices remembers, per Service key, the slices this controller
// created, updated or deleted until its cache shows each write. A
// reconcile on a cache that is behind would otherwise create a second
// slice for the same pods, or resurrect a deleted one. kube's controller
// keeps the same record (its endpointSliceTracker).
type writtenSlices struct {
	mu sync.Mutex
	// byService maps a Service key to slice name → the generation the
	// cache must reach (gone: the slice must be absent).
	byService map[string]map[string]int64
}

const gone = -1

func newWrittenSlices() *writtenSlices {
	return &writtenSlices{byService: map[string]map[string]int64{}}
}

// wrote records a write of slice (deleted: a delete).
func (w *writtenSlices) wrote(key string, slice *discoveryv1.EndpointSlice, deleted bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	m := w.byService[key]
	if m == nil {
		m = map[string]int64{}
		w.byService[key] = m
	}
	if deleted {
		m[slice.Name] = gone
	} else {
		m[slice.Name] = slice.Generation
	}
}

// stale reports whether cached (the Service's slices in the cache) lacks
// a write; writes the cache shows are forgotten.
func (w *writtenSlices) stale(key string, cached []*discoveryv1.EndpointSlice) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	m := w.byService[key]
	if len(m) == 0 {
		return false
	}
	byName := make(map[string]*discoveryv1.EndpointSlice, len(cached))
	for _, s := range cached {
		byName[s.Name] = s
	}
	behind := false
	for name, gen := range m {
		s, ok := byName[name]
		switch {
		case gen == gone && ok, gen != gone && !ok, ok && s.Generation < gen:
			behind = true
		default:
			delete(m, name)
		}
	}
	if len(m) == 0 {
		delete(w.byService, key)
	}
	return behind
}

// forget drops what was remembered for a Service that is gone.
func (w *writtenSlices) forget(key string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.byService, key)
}
