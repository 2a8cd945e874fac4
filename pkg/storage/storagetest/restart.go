package storagetest

import (
	"fmt"
	"testing"

	"github.com/miniapi/miniapi/pkg/storage"
)

func testRestartKeeps(t *testing.T, h *harness) {
	s := h.store()
	for i := range 30 {
		key := fmt.Sprintf("/rs/%02d", i)
		r := mustCreate(t, s, key, "v1")
		switch i % 3 {
		case 1:
			mustUpdate(t, s, key, "v2", r)
		case 2:
			mustDelete(t, s, key, r)
		}
	}
	before := mustList(t, s, "/rs/", storage.ListOptions{})
	rev := s.Revision()

	s = h.restart()
	if got := s.Revision(); got != rev {
		t.Fatalf("Revision after restart = %d, want %d", got, rev)
	}
	after := mustList(t, s, "/rs/", storage.ListOptions{})
	if after.Revision != rev || len(after.KVs) != len(before.KVs) {
		t.Fatalf("after restart: %d keys at %d, want %d at %d", len(after.KVs), after.Revision, len(before.KVs), rev)
	}
	for i := range after.KVs {
		checkKV(t, "key after restart", after.KVs[i], before.KVs[i])
	}
	if next := mustCreate(t, s, "/rs/new", "x"); next <= rev {
		t.Fatalf("first write after restart got revision %d, not above %d", next, rev)
	}
}

func testRestartAfterDelete(t *testing.T, h *harness) {
	s := h.store()
	mustCreate(t, s, "/rd/a", "x")
	del := mustDelete(t, s, "/rd/a", 0).ModRevision
	s = h.restart()
	if got := s.Revision(); got != del {
		t.Fatalf("Revision after restart = %d, want the delete's %d", got, del)
	}
	if next := mustCreate(t, s, "/rd/a", "y"); next <= del {
		t.Fatalf("write after restart got revision %d, not above the delete's %d", next, del)
	}
}

func testWatchAcrossRestart(t *testing.T, h *harness) {
	s := h.store()
	from := mustCreate(t, s, "/wr/a", "a1")
	r2 := mustUpdate(t, s, "/wr/a", "a2", from)
	r3 := mustCreate(t, s, "/wr/b", "b1")
	r4 := mustDelete(t, s, "/wr/b", 0).ModRevision

	s = h.restart()
	w := mustWatch(t, s, "/wr/", from)
	a1 := storage.KV{Key: "/wr/a", Value: []byte("a1"), CreateRevision: from, ModRevision: from}
	a2 := storage.KV{Key: "/wr/a", Value: []byte("a2"), CreateRevision: from, ModRevision: r2}
	b1 := storage.KV{Key: "/wr/b", Value: []byte("b1"), CreateRevision: r3, ModRevision: r3}
	checkEvent(t, next(t, w), storage.Put, a2, &a1)
	checkEvent(t, next(t, w), storage.Put, b1, nil)
	gone := b1
	gone.ModRevision = r4
	checkEvent(t, next(t, w), storage.Delete, gone, &b1)
	r5 := mustCreate(t, s, "/wr/c", "c1")
	checkEvent(t, next(t, w), storage.Put, storage.KV{Key: "/wr/c", Value: []byte("c1"), CreateRevision: r5, ModRevision: r5}, nil)
	quiet(t, w)
}
