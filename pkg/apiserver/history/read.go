package history

import (
	"context"
	"errors"
	"fmt"

	"github.com/miniapi/miniapi/pkg/storage"
)

// Revision is one kept state of a key.
type Revision struct {
	// KV is the key's value at this revision; for a delete, the value it
	// had before, with the delete's revision as ModRevision.
	KV storage.KV
	// Deleted says this revision removed the key.
	Deleted bool
	// Oldest says this is the state just before the oldest kept change
	// (or the current state, when no change to the key is kept): the
	// write that made it is not in the history, so what it changed is
	// unknown unless it was the create (KV.CreateRevision ==
	// KV.ModRevision).
	Oldest bool

	// prev is the value before this change, while Read still needs it.
	prev *storage.KV
}

// Read returns every kept revision of key, oldest first, up to the
// store's revision when Read began. It answers storage.ErrNotFound when
// the key does not exist and no change to it is kept.
//
// The history is replayed with a Watch on key from the oldest revision
// the store still answers. A watch on a key is a prefix watch (/pods/ns/web
// also matches /pods/ns/web-1), so only events of exactly key are kept.
// The replay stops at the event that wrote the current value, or, for a
// key that does not exist now, at the first event or progress
// notification at or after the starting revision: both stores send one
// about every second to an idle watch.
func Read(ctx context.Context, store storage.Store, key string) ([]Revision, error) {
	end := store.Revision()
	cur, err := store.Get(ctx, key)
	exists := err == nil
	if err != nil && !errors.Is(err, storage.ErrNotFound) {
		return nil, err
	}
	stopAt := end
	if exists {
		stopAt = cur.ModRevision
	}
	w, from, err := watchOldest(ctx, store, key)
	if err != nil {
		return nil, err
	}
	defer w.Stop()
	var revs []Revision
	if !exists || cur.ModRevision > from {
		if revs, err = replay(ctx, w, key, stopAt); err != nil {
			return nil, err
		}
	}
	switch {
	case len(revs) > 0 && revs[0].prev != nil:
		revs = append([]Revision{{KV: *revs[0].prev, Oldest: true}}, revs...)
	case len(revs) == 0 && exists:
		revs = []Revision{{KV: cur, Oldest: true}}
	case len(revs) == 0:
		return nil, storage.ErrNotFound
	}
	for i := range revs {
		revs[i].prev = nil
	}
	return revs, nil
}

// watchOldest opens a watch on key from the oldest revision the store
// still answers, and returns that revision.
func watchOldest(ctx context.Context, store storage.Store, key string) (storage.Watcher, int64, error) {
	from := int64(1)
	w, err := store.Watch(ctx, key, from)
	var expired *storage.ExpiredError
	if errors.As(err, &expired) && expired.Oldest > 0 {
		from = expired.Oldest
		w, err = store.Watch(ctx, key, from)
	}
	if err != nil {
		return nil, 0, err
	}
	return w, from, nil
}

// replay reads w's events of exactly key until one at or after revision
// stopAt.
func replay(ctx context.Context, w storage.Watcher, key string, stopAt int64) ([]Revision, error) {
	var revs []Revision
	for {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case ev, ok := <-w.Events():
			if !ok {
				if err := w.Err(); err != nil {
					return nil, fmt.Errorf("reading the history of %s: %w", key, err)
				}
				return nil, fmt.Errorf("reading the history of %s: watch ended", key)
			}
			if ev.Type != storage.Progress && ev.KV.Key == key {
				revs = append(revs, Revision{KV: ev.KV, Deleted: ev.Type == storage.Delete, prev: ev.PrevKV})
			}
			if ev.KV.ModRevision >= stopAt {
				return revs, nil
			}
		}
	}
}
