package etcd

import (
	"strings"

	"github.com/miniapi/miniapi/pkg/storage"
)

// ring keeps a feed's most recent events, so that a watch opening at a
// revision the feed has already passed is replayed from memory. It holds
// every event the feed received after floor.
type ring struct {
	size   int
	events []storage.Event // grows to size, then wraps at head
	head   int             // index of the oldest event once full
	floor  int64
}

func newRing(size int, start int64) ring {
	return ring{size: max(size, 0), floor: start}
}

// push keeps ev, dropping the oldest event when full.
func (r *ring) push(ev storage.Event) {
	switch {
	case r.size == 0:
		r.floor = ev.KV.ModRevision
	case len(r.events) < r.size:
		r.events = append(r.events, ev)
	default:
		r.floor = r.events[r.head].KV.ModRevision
		r.events[r.head] = ev
		r.head = (r.head + 1) % r.size
	}
}

// since copies the kept events after revision from under prefix, oldest
// first. from must not be below floor.
func (r *ring) since(from int64, prefix string) []storage.Event {
	var out []storage.Event
	for i := range r.events {
		ev := r.events[(r.head+i)%len(r.events)]
		if ev.KV.ModRevision > from && strings.HasPrefix(ev.KV.Key, prefix) {
			out = append(out, ev)
		}
	}
	return out
}
