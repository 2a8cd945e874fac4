package job

import (
	"strconv"
	"sync"
)

// writtenStatus remembers, per Job key, the resourceVersion of this
// controller's last status write until the Job cache shows it.
//
// Why: a pass that read a Job older than its own last write would not see
// the pods that write counted (their finalizers are gone, so they are not
// counted again either), and would create their replacements a second
// time. So a pass waits until the cache holds the write; the write's own
// watch event queues the Job again, so waiting costs no poll.
//
// resourceVersions are compared as numbers, which miniapi's and etcd's
// are; one that is not a number (a fake client's) is not remembered.
type writtenStatus struct {
	mu       sync.Mutex
	versions map[string]uint64
}

// record notes that key's status was written at resourceVersion rv.
func (w *writtenStatus) record(key, rv string) {
	v, err := strconv.ParseUint(rv, 10, 64)
	if err != nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.versions == nil {
		w.versions = map[string]uint64{}
	}
	w.versions[key] = v
}

// seen reports whether cachedRV, the resourceVersion of key's cached
// Job, is at or past the last write, and forgets the write once it is.
func (w *writtenStatus) seen(key, cachedRV string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	want, ok := w.versions[key]
	if !ok {
		return true
	}
	if v, err := strconv.ParseUint(cachedRV, 10, 64); err == nil && v < want {
		return false
	}
	delete(w.versions, key)
	return true
}

// forget drops key (its Job is gone).
func (w *writtenStatus) forget(key string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.versions, key)
}
