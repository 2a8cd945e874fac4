package storagetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/miniapi/miniapi/pkg/storage"
)

func testRevisionStrictlyIncreasing(t *testing.T, h *harness) {
	s := h.store()
	last := s.Revision()
	step := func(what string, rev int64) {
		t.Helper()
		if rev <= last {
			t.Fatalf("%s got revision %d, not above %d", what, rev, last)
		}
		if got := s.Revision(); got != rev {
			t.Fatalf("after %s Revision() = %d, want %d", what, got, rev)
		}
		last = rev
	}
	r := mustCreate(t, s, "/r/a", "1")
	step("create", r)
	r = mustUpdate(t, s, "/r/a", "2", r)
	step("update", r)
	step("delete", mustDelete(t, s, "/r/a", 0).ModRevision)
	step("re-create", mustCreate(t, s, "/r/a", "3"))
	step("create other", mustCreate(t, s, "/r/b", "4"))
}

func testCreateGetUpdateDelete(t *testing.T, h *harness) {
	s := h.store()
	const key = "/crud/k"
	_, err := s.Get(ctx(t), key)
	wantErr(t, "Get missing", err, storage.ErrNotFound)

	r1 := mustCreate(t, s, key, "v1")
	kv, err := s.Get(ctx(t), key)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	want := storage.KV{Key: key, Value: []byte("v1"), CreateRevision: r1, ModRevision: r1}
	checkKV(t, "Get after create", kv, want)
	_, err = s.Create(ctx(t), key, []byte("again"))
	wantErr(t, "Create existing", err, storage.ErrExists)

	_, err = s.Update(ctx(t), key, []byte("v2"), r1+100)
	wantErr(t, "Update with wrong revision", err, storage.ErrConflict)
	_, err = s.Update(ctx(t), key, []byte("v2"), 0)
	wantErr(t, "Update with revision 0", err, storage.ErrConflict)
	_, err = s.Update(ctx(t), "/crud/missing", []byte("v2"), r1)
	wantErr(t, "Update missing", err, storage.ErrNotFound)
	r2 := mustUpdate(t, s, key, "v2", r1)
	kv, _ = s.Get(ctx(t), key)
	checkKV(t, "Get after update", kv, storage.KV{Key: key, Value: []byte("v2"), CreateRevision: r1, ModRevision: r2})
	_, err = s.Update(ctx(t), key, []byte("v3"), r1)
	wantErr(t, "Update with stale revision", err, storage.ErrConflict)

	_, err = s.Delete(ctx(t), key, r1)
	wantErr(t, "Delete with stale revision", err, storage.ErrConflict)
	del := mustDelete(t, s, key, r2)
	if del.ModRevision <= r2 {
		t.Fatalf("delete revision %d not above %d", del.ModRevision, r2)
	}
	checkKV(t, "Delete result", del, storage.KV{Key: key, Value: []byte("v2"), CreateRevision: r1, ModRevision: del.ModRevision})
	_, err = s.Get(ctx(t), key)
	wantErr(t, "Get deleted", err, storage.ErrNotFound)
	_, err = s.Delete(ctx(t), key, 0)
	wantErr(t, "Delete deleted", err, storage.ErrNotFound)

	r3 := mustCreate(t, s, key, "v4")
	if del := mustDelete(t, s, key, 0); del.CreateRevision != r3 || string(del.Value) != "v4" {
		t.Fatalf("unconditional Delete returned %+v", del)
	}
}

func checkKV(t testing.TB, what string, got, want storage.KV) {
	t.Helper()
	if got.Key != want.Key || string(got.Value) != string(want.Value) ||
		got.CreateRevision != want.CreateRevision || got.ModRevision != want.ModRevision {
		t.Fatalf("%s: got {%q %q create=%d mod=%d}, want {%q %q create=%d mod=%d}", what,
			got.Key, got.Value, got.CreateRevision, got.ModRevision,
			want.Key, want.Value, want.CreateRevision, want.ModRevision)
	}
}

func testFailedWritesTakeNoRevision(t *testing.T, h *harness) {
	s := h.store()
	r := mustCreate(t, s, "/f/a", "1")
	_, err := s.Create(ctx(t), "/f/a", nil)
	wantErr(t, "Create existing", err, storage.ErrExists)
	_, err = s.Update(ctx(t), "/f/a", nil, r+7)
	wantErr(t, "Update stale", err, storage.ErrConflict)
	_, err = s.Delete(ctx(t), "/f/nope", 0)
	wantErr(t, "Delete missing", err, storage.ErrNotFound)
	if got := s.Revision(); got != r {
		t.Fatalf("failed writes moved the revision from %d to %d", r, got)
	}
	if next := mustCreate(t, s, "/f/b", "2"); next != r+1 {
		t.Fatalf("next write got revision %d, want %d", next, r+1)
	}
}

func testCancelledWrite(t *testing.T, h *harness) {
	s := h.store()
	c, cancel := context.WithCancel(ctx(t))
	cancel()
	_, err := s.Create(c, "/cancel/a", []byte("x"))
	wantErr(t, "Create with cancelled context", err, context.Canceled)
	_, err = s.Get(ctx(t), "/cancel/a")
	wantErr(t, "Get after cancelled Create", err, storage.ErrNotFound)
}

// testConcurrentWriters drives the group commit: many writers at once, some
// of them racing on the same keys, and every acknowledged write is kept with
// its own revision.
func testConcurrentWriters(t *testing.T, h *harness) {
	s := h.store()
	const writers, each = 16, 20
	var mu sync.Mutex
	revs := map[int64]string{}
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				key := fmt.Sprintf("/cw/%02d-%02d", w, i)
				rev, err := s.Create(ctx(t), key, []byte(key))
				if err != nil {
					t.Errorf("Create %s: %v", key, err)
					return
				}
				// Every writer also fights over one shared key; exactly
				// one of two creates can win.
				_, shared := s.Create(ctx(t), "/cw/shared", []byte(key))
				if shared == nil {
					if _, err := s.Delete(ctx(t), "/cw/shared", 0); err != nil {
						t.Errorf("Delete shared key I created: %v", err)
					}
				} else if !errors.Is(shared, storage.ErrExists) {
					t.Errorf("Create shared: %v", shared)
				}
				mu.Lock()
				if other, dup := revs[rev]; dup {
					t.Errorf("revision %d given to %s and %s", rev, other, key)
				}
				revs[rev] = key
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	res, err := s.List(ctx(t), "/cw/", storage.ListOptions{})
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	found := 0
	for _, kv := range res.KVs {
		if kv.Key == "/cw/shared" {
			continue
		}
		found++
		if revs[kv.ModRevision] != kv.Key {
			t.Errorf("%s listed at revision %d, acknowledged as %q", kv.Key, kv.ModRevision, revs[kv.ModRevision])
		}
	}
	if found != writers*each {
		t.Fatalf("listed %d keys, want %d", found, writers*each)
	}
}
