package boltstore

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/miniapi/miniapi/pkg/storage"
)

func open(t testing.TB, path string, opts Options) *Store {
	t.Helper()
	s, err := Open(path, opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func create(t testing.TB, s *Store, key string) int64 {
	t.Helper()
	rev, err := s.Create(t.Context(), key, []byte(key))
	if err != nil {
		t.Fatalf("Create(%s): %v", key, err)
	}
	return rev
}

// diskEvents returns the revisions in the events bucket.
func diskEvents(t testing.TB, s *Store) []int64 {
	t.Helper()
	var revs []int64
	err := s.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketEvents).ForEach(func(k, _ []byte) error {
			rev, err := decodeRev(k)
			revs = append(revs, rev)
			return err
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return revs
}

func TestHistoryOnDiskIsBounded(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "db"), Options{HistorySize: 7})
	for i := range 50 {
		rev := create(t, s, fmt.Sprintf("/h/%d", i))
		if i%2 == 0 {
			if _, err := s.Delete(t.Context(), fmt.Sprintf("/h/%d", i), rev); err != nil {
				t.Fatal(err)
			}
		}
	}
	revs := diskEvents(t, s)
	cur := s.Revision()
	if len(revs) != 7 || revs[0] != cur-6 || revs[6] != cur {
		t.Fatalf("events on disk %v, want the 7 up to %d", revs, cur)
	}
}

func TestWatchExpiryBoundaryIsExact(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "db"), Options{HistorySize: 5})
	for i := range 20 {
		create(t, s, fmt.Sprintf("/x/%d", i))
	}
	cur := s.Revision()
	w, err := s.Watch(t.Context(), "/x/", cur-5)
	if err != nil {
		t.Fatalf("Watch(oldest-1): %v", err)
	}
	w.Stop()
	_, err = s.Watch(t.Context(), "/x/", cur-6)
	var expired *storage.ExpiredError
	if !errors.As(err, &expired) || *expired != (storage.ExpiredError{Requested: cur - 6, Oldest: cur - 5}) {
		t.Fatalf("Watch(oldest-2): %v, want ExpiredError{%d %d}", err, cur-6, cur-5)
	}
	// A list at a revision follows the same bound.
	if _, err := s.List(t.Context(), "/x/", storage.ListOptions{Revision: cur - 5}); err != nil {
		t.Fatalf("List at oldest-1: %v", err)
	}
	_, err = s.List(t.Context(), "/x/", storage.ListOptions{Revision: cur - 6})
	if !errors.As(err, &expired) || *expired != (storage.ExpiredError{Requested: cur - 6, Oldest: cur - 5}) {
		t.Fatalf("List at oldest-2: %v, want ExpiredError{%d %d}", err, cur-6, cur-5)
	}
}

func TestOpenTrimsHistoryWhenItShrinks(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	s := open(t, path, Options{HistorySize: 100})
	for i := range 30 {
		create(t, s, fmt.Sprintf("/t/%d", i))
	}
	cur := s.Revision()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = open(t, path, Options{HistorySize: 10})
	if n := len(diskEvents(t, s)); n != 10 {
		t.Fatalf("%d events on disk after reopening with HistorySize 10", n)
	}
	if _, err := s.Watch(t.Context(), "/t/", cur-11); !errors.Is(err, storage.ErrExpired) {
		t.Fatalf("Watch(cur-11): %v, want ErrExpired", err)
	}
	w, err := s.Watch(t.Context(), "/t/", cur-10)
	if err != nil {
		t.Fatalf("Watch(cur-10): %v", err)
	}
	w.Stop()
}

// TestGroupCommitSharesOneTransaction holds the first commit (in OnCommit,
// which runs on the committer) until every other writer is queued, then
// checks that they all went into the next transaction, where three creates
// of the same key fail alone: one wins, the others get ErrExists.
func TestGroupCommitSharesOneTransaction(t *testing.T) {
	const writers = 32
	var (
		mu      sync.Mutex
		batches []int
	)
	release := make(chan struct{})
	s := open(t, filepath.Join(t.TempDir(), "db"), Options{OnCommit: func(n int, _ time.Duration) {
		mu.Lock()
		batches = append(batches, n)
		first := len(batches) == 1
		mu.Unlock()
		if first {
			<-release
		}
	}})
	committed := func() int {
		mu.Lock()
		defer mu.Unlock()
		return len(batches)
	}
	var wg sync.WaitGroup
	var exists atomic.Int32
	write := func(key string) {
		_, err := s.Create(t.Context(), key, []byte("x"))
		switch {
		case errors.Is(err, storage.ErrExists) && key == "/g/dup":
			exists.Add(1)
		case err != nil:
			t.Errorf("Create(%s): %v", key, err)
		}
	}
	wg.Go(func() { write("/g/first") })
	waitFor(t, "first commit", func() bool { return committed() == 1 })
	for i := range writers - 1 {
		key := fmt.Sprintf("/g/%d", i)
		if i%10 == 5 {
			key = "/g/dup"
		}
		wg.Go(func() { write(key) })
	}
	waitFor(t, "writers queued", func() bool { return len(s.reqs) == writers-1 })
	close(release)
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(batches, []int{1, writers - 3}) || exists.Load() != 2 {
		t.Fatalf("transactions carried %v writes and %d creates failed, want [1 %d] and 2", batches, exists.Load(), writers-3)
	}
	if s.Revision() != writers-2 {
		t.Fatalf("revision %d after %d successful writes", s.Revision(), writers-2)
	}
}

func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestCorruptHistoryRefusesOpen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	s := open(t, path, Options{})
	for i := range 5 {
		create(t, s, fmt.Sprintf("/c/%d", i))
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error { return tx.Bucket(bucketEvents).Delete(revKey(3)) })
	if cerr := db.Close(); err != nil || cerr != nil {
		t.Fatal(err, cerr)
	}
	if s, err := Open(path, Options{}); !errors.Is(err, errCorrupt) {
		if err == nil {
			_ = s.Close()
		}
		t.Fatalf("Open with a gap in the history: %v, want errCorrupt", err)
	}
}

func TestSecondOpenOfTheSameFileFails(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	open(t, path, Options{})
	if s, err := Open(path, Options{}); err == nil {
		_ = s.Close()
		t.Fatal("second Open of an open file succeeded")
	}
}

// TestFileDoesNotGrowUnderChurn rewrites and deletes the same keys many
// times; freed pages are reused, so the file stops growing.
func TestFileDoesNotGrowUnderChurn(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	s := open(t, path, Options{HistorySize: 200})
	value := make([]byte, 1000)
	// Each round churns its keys from concurrent writers, so that group
	// commit keeps the number of fsyncs (and the test's time) small.
	round := func() {
		var wg sync.WaitGroup
		for i := range 100 {
			wg.Go(func() {
				key := fmt.Sprintf("/churn/%03d", i)
				rev, err := s.Create(t.Context(), key, value)
				if err == nil {
					rev, err = s.Update(t.Context(), key, value, rev)
				}
				if err == nil {
					_, err = s.Delete(t.Context(), key, rev)
				}
				if err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
	}
	size := func() int64 {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	for range 5 {
		round()
	}
	early := size()
	for range 15 {
		round()
	}
	if late := size(); late > 2*early {
		t.Fatalf("file grew from %d to %d bytes under churn", early, late)
	}
}

// TestListAtRevisionMatchesModel writes random creates, updates and deletes,
// remembers the state after every revision, and checks paged lists at past
// revisions against it.
func TestListAtRevisionMatchesModel(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "db"), Options{HistorySize: 400})
	s.db.NoSync = true // durability is not under test here; 300 fsyncs would be
	rng := rand.New(rand.NewPCG(1, 2))
	model := map[string]storage.KV{}
	states := map[int64][]storage.KV{}
	snapshot := func() []storage.KV {
		var kvs []storage.KV
		for _, kv := range model {
			if kv.Key >= "/m/" && kv.Key < "/m0" {
				kvs = append(kvs, kv)
			}
		}
		slices.SortFunc(kvs, func(a, b storage.KV) int { return compare(a.Key, b.Key) })
		return kvs
	}
	for range 300 {
		dir := []string{"/m/", "/m/", "/mx/"}[rng.IntN(3)]
		key := fmt.Sprintf("%s%02d", dir, rng.IntN(30))
		val := []byte(fmt.Sprint(rng.Int()))
		old, exists := model[key]
		switch {
		case !exists:
			rev, err := s.Create(t.Context(), key, val)
			must(t, err)
			model[key] = storage.KV{Key: key, Value: val, CreateRevision: rev, ModRevision: rev}
		case rng.IntN(2) == 0:
			rev, err := s.Update(t.Context(), key, val, old.ModRevision)
			must(t, err)
			model[key] = storage.KV{Key: key, Value: val, CreateRevision: old.CreateRevision, ModRevision: rev}
		default:
			_, err := s.Delete(t.Context(), key, old.ModRevision)
			must(t, err)
			delete(model, key)
		}
		states[s.Revision()] = snapshot()
	}
	for at, want := range states {
		limit := 1 + rng.IntN(8)
		var got []storage.KV
		start := ""
		for {
			res, err := s.List(t.Context(), "/m/", storage.ListOptions{Revision: at, StartKey: start, Limit: limit})
			must(t, err)
			if res.Revision != at {
				t.Fatalf("list at %d answered revision %d", at, res.Revision)
			}
			got = append(got, res.KVs...)
			if !res.More {
				break
			}
			start = res.KVs[len(res.KVs)-1].Key + "\x00"
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("list at %d:\n got %v\nwant %v", at, got, want)
		}
	}
	_, err := s.List(t.Context(), "/m/", storage.ListOptions{Revision: s.Revision() + 1})
	if !errors.Is(err, storage.ErrFutureRevision) {
		t.Fatalf("list at a future revision: %v", err)
	}
}

func compare(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
