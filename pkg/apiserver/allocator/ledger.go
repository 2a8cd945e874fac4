package allocator

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/miniapi/miniapi/pkg/storage"
)

// maxAttempts bounds the read-modify-write loop of one update. Each round
// that conflicts is one that another writer won, so the bound only matters
// when several servers write the same key without pause.
const maxAttempts = 64

// ledger is the core both kinds of range share: the set of allocated
// offsets 0..size-1 of one range, kept in one store key and changed only by
// compare-and-swap on the key's ModRevision.
type ledger struct {
	store storage.Store
	key   string
	spec  string // the range as configured, written into the record
	size  int
	// band: offsets below it are left for requested values (KEP-3070 and
	// KEP-3668); AllocateNext takes them only when the rest is full.
	band int

	// sem admits one operation of this process at a time, so that this
	// process's callers queue here instead of failing each other's
	// compare-and-swap in the store. Conflicts then come only from other
	// processes (or other ledgers) writing the same key.
	sem chan struct{}
	// decoded is the last state read or written, reused while the key's
	// revision is unchanged so that a large set is not decoded again.
	// Guarded by sem.
	decoded *snapshot
}

// snapshot is the key's state at one revision.
type snapshot struct {
	rev int64 // the key's ModRevision; 0 when the key does not exist
	set *bitmap
	// replaced is set when the stored record was unusable (made for
	// another range, or unreadable) and Repair started from an empty set;
	// it says what the record was.
	replaced string
}

func newLedger(store storage.Store, key, spec string, size, band int) (*ledger, error) {
	if store == nil {
		return nil, errors.New("allocator: no store")
	}
	if key == "" {
		return nil, errors.New("allocator: empty key")
	}
	return &ledger{store: store, key: key, spec: spec, size: size, band: band, sem: make(chan struct{}, 1)}, nil
}

func (l *ledger) lock(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err // select would pick at random between the two
	}
	select {
	case l.sem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (l *ledger) unlock() { <-l.sem }

// load reads the key's current state. Every operation starts with it, so
// no answer (taken, free, full) rests on a state another server has since
// changed. With adopt, a record made for another range or unreadable gives
// an empty set to replace it; without, it is an error.
func (l *ledger) load(ctx context.Context, adopt bool) (*snapshot, error) {
	kv, err := l.store.Get(ctx, l.key)
	if errors.Is(err, storage.ErrNotFound) {
		return &snapshot{set: newBitmap(l.size)}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("allocator: read %s: %w", l.key, err)
	}
	if l.decoded != nil && l.decoded.rev == kv.ModRevision {
		return l.decoded, nil
	}
	stored, set, err := decodeRecord(kv.Value, l.spec, l.size)
	switch {
	case err != nil && !adopt:
		return nil, fmt.Errorf("allocator: %s holds an unreadable record (%v); Repair rewrites it", l.key, err)
	case err != nil:
		return &snapshot{rev: kv.ModRevision, set: newBitmap(l.size), replaced: "unreadable: " + err.Error()}, nil
	case set == nil && !adopt:
		return nil, &RangeChangedError{Key: l.key, Stored: stored, Configured: l.spec}
	case set == nil:
		return &snapshot{rev: kv.ModRevision, set: newBitmap(l.size), replaced: "range " + stored}, nil
	}
	l.decoded = &snapshot{rev: kv.ModRevision, set: set}
	return l.decoded, nil
}

// edit changes a private copy of the set (next) and says whether it
// changed anything; an error or no change ends the update without a write.
type edit func(current *snapshot, next *bitmap) (changed bool, err error)

// update reads the key, applies fn and writes the result if the key has
// not changed since it was read; otherwise it reads again and reapplies fn,
// at most maxAttempts times.
func (l *ledger) update(ctx context.Context, adopt bool, fn edit) error {
	if err := l.lock(ctx); err != nil {
		return err
	}
	defer l.unlock()
	for range maxAttempts {
		cur, err := l.load(ctx, adopt)
		if err != nil {
			return err
		}
		next := cur.set.clone()
		changed, err := fn(cur, next)
		if err != nil || !changed {
			return err
		}
		rev, err := l.write(ctx, cur.rev, next)
		if err == nil {
			l.decoded = &snapshot{rev: rev, set: next}
			return nil
		}
		if !lostRace(err) {
			// The write's outcome may be unknown (a store that times
			// out); the next load reads what is there.
			l.decoded = nil
			return fmt.Errorf("allocator: write %s: %w", l.key, err)
		}
	}
	return fmt.Errorf("%w of %s: gave up after %d attempts", ErrContended, l.key, maxAttempts)
}

func (l *ledger) write(ctx context.Context, rev int64, set *bitmap) (int64, error) {
	value, err := encodeRecord(l.spec, set)
	if err != nil {
		return 0, err
	}
	if rev == 0 {
		return l.store.Create(ctx, l.key, value)
	}
	return l.store.Update(ctx, l.key, value, rev)
}

// lostRace: the key changed (or appeared, or went) between read and write.
func lostRace(err error) bool {
	return errors.Is(err, storage.ErrConflict) || errors.Is(err, storage.ErrExists) ||
		errors.Is(err, storage.ErrNotFound)
}

// allocate takes offset i, or answers taken.
func (l *ledger) allocate(ctx context.Context, i int, taken error) error {
	return l.update(ctx, false, func(_ *snapshot, next *bitmap) (bool, error) {
		if !next.set(i) {
			return false, taken
		}
		return true, nil
	})
}

// allocateNext takes a free offset chosen at random, as kube-apiserver
// does: first above the band kept for requested values, then within it.
func (l *ledger) allocateNext(ctx context.Context) (int, error) {
	var got int
	err := l.update(ctx, false, func(_ *snapshot, next *bitmap) (bool, error) {
		got = pickFree(next, l.band, l.size)
		if got < 0 {
			got = pickFree(next, 0, l.band)
		}
		if got < 0 {
			return false, ErrFull
		}
		next.set(got)
		return true, nil
	})
	return got, err
}

// pickFree is the first free offset in [lo, hi) from a random start,
// wrapping around, or -1.
func pickFree(set *bitmap, lo, hi int) int {
	if lo >= hi {
		return -1
	}
	start := lo + rand.IntN(hi-lo)
	if i := set.nextFree(start, hi); i >= 0 {
		return i
	}
	return set.nextFree(lo, start)
}

// release frees offset i; freeing a free offset writes nothing.
func (l *ledger) release(ctx context.Context, i int) error {
	return l.update(ctx, false, func(_ *snapshot, next *bitmap) (bool, error) {
		return next.clear(i), nil
	})
}

func (l *ledger) has(ctx context.Context, i int) (bool, error) {
	if err := l.lock(ctx); err != nil {
		return false, err
	}
	defer l.unlock()
	cur, err := l.load(ctx, false)
	if err != nil {
		return false, err
	}
	return cur.set.has(i), nil
}
