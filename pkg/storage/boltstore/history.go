package boltstore

import (
	"strings"

	"github.com/miniapi/miniapi/pkg/storage"
)

// history is the in-memory copy of the events bucket: a ring of the last
// size events. Every write makes exactly one event and takes exactly the
// next revision, so the ring holds the contiguous revisions
// [last-n+1, last] and an event's slot follows from its revision.
//
// The ring grows to size as events come rather than starting there: a
// full one is size events of 72 bytes that the garbage collector scans
// (0.7 MiB at the default 10,000), which an idle server with a few dozen
// events need not keep.
type history struct {
	buf   []storage.Event
	size  int   // most events held
	start int   // slot of the oldest event
	n     int   // events held
	last  int64 // revision of the newest event (the store revision)
}

// minHistoryRing is the ring's first length, unless size is smaller.
const minHistoryRing = 64

func newHistory(size int, rev int64, events []storage.Event) *history {
	ring := min(size, max(len(events), minHistoryRing))
	h := &history{buf: make([]storage.Event, ring), size: size, last: rev - int64(len(events))}
	for _, ev := range events {
		h.append(ev)
	}
	return h
}

// grow doubles the ring, up to size, keeping the events in order from
// slot 0.
func (h *history) grow() {
	buf := make([]storage.Event, min(h.size, 2*len(h.buf)))
	for i := range h.n {
		buf[i] = h.buf[(h.start+i)%len(h.buf)]
	}
	h.buf, h.start = buf, 0
}

func eventRevision(ev storage.Event) int64 { return ev.KV.ModRevision }

func (h *history) append(ev storage.Event) {
	if h.n == len(h.buf) && len(h.buf) < h.size {
		h.grow()
	}
	if h.n < len(h.buf) {
		h.buf[(h.start+h.n)%len(h.buf)] = ev
		h.n++
	} else {
		h.buf[h.start] = ev
		h.start = (h.start + 1) % len(h.buf)
	}
	h.last = eventRevision(ev)
}

// oldest is the revision of the oldest kept event; last+1 when none is.
func (h *history) oldest() int64 { return h.last - int64(h.n) + 1 }

// at returns the kept event at revision rev.
func (h *history) at(rev int64) (storage.Event, bool) {
	if rev < h.oldest() || rev > h.last {
		return storage.Event{}, false
	}
	return h.buf[(h.start+int(rev-h.oldest()))%len(h.buf)], true
}

// since returns the kept events after revision rev under prefix, oldest
// first. The caller has checked rev >= oldest()-1.
func (h *history) since(rev int64, prefix string) []storage.Event {
	var out []storage.Event
	for i := int(rev + 1 - h.oldest()); i < h.n; i++ {
		ev := h.buf[(h.start+i)%len(h.buf)]
		if strings.HasPrefix(ev.KV.Key, prefix) {
			out = append(out, ev)
		}
	}
	return out
}

// dropBefore forgets the events before revision rev (a history trim by
// Compact), so that watches and lists agree on how far back they reach.
func (h *history) dropBefore(rev int64) {
	for h.n > 0 && h.oldest() < rev {
		h.buf[h.start] = storage.Event{}
		h.start = (h.start + 1) % len(h.buf)
		h.n--
	}
}
