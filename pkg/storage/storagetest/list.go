package storagetest

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/miniapi/miniapi/pkg/storage"
)

func mustList(t testing.TB, s storage.Store, prefix string, opts storage.ListOptions) storage.ListResult {
	t.Helper()
	res, err := s.List(ctx(t), prefix, opts)
	if err != nil {
		t.Fatalf("List(%q, %+v): %v", prefix, opts, err)
	}
	return res
}

func keys(kvs []storage.KV) []string {
	var out []string
	for _, kv := range kvs {
		out = append(out, kv.Key)
	}
	return out
}

func testPrefixIsolation(t *testing.T, h *harness) {
	s := h.store()
	w := mustWatch(t, s, "/a/b/", 0)
	mustCreate(t, s, "/a/bc/y", "not mine")
	mustCreate(t, s, "/a/b", "not mine either")
	r := mustCreate(t, s, "/a/b/x", "mine")
	mustCreate(t, s, "/a/c/z", "not mine")

	res := mustList(t, s, "/a/b/", storage.ListOptions{})
	if got := keys(res.KVs); !slices.Equal(got, []string{"/a/b/x"}) {
		t.Fatalf("List(/a/b/) = %v", got)
	}
	if ev := next(t, w); ev.KV.Key != "/a/b/x" || ev.KV.ModRevision != r {
		t.Fatalf("watch /a/b/ got %s@%d, want /a/b/x@%d", ev.KV.Key, ev.KV.ModRevision, r)
	}
	quiet(t, w)
	all := mustList(t, s, "/a/", storage.ListOptions{})
	if got := keys(all.KVs); !slices.Equal(got, []string{"/a/b", "/a/b/x", "/a/bc/y", "/a/c/z"}) {
		t.Fatalf("List(/a/) = %v", got)
	}
}

func testListPaging(t *testing.T, h *harness) {
	s := h.store()
	var want []string
	for i := range 25 {
		key := fmt.Sprintf("/page/k%02d", i)
		mustCreate(t, s, key, key)
		want = append(want, key)
	}
	mustCreate(t, s, "/pagezz", "outside")
	all := mustList(t, s, "/page/", storage.ListOptions{})
	if got := keys(all.KVs); !slices.Equal(got, want) || all.More {
		t.Fatalf("full list = %v more=%v", got, all.More)
	}
	if all.Revision != s.Revision() {
		t.Fatalf("list revision %d, store at %d", all.Revision, s.Revision())
	}
	var got []string
	start := ""
	for page := 0; ; page++ {
		res := mustList(t, s, "/page/", storage.ListOptions{StartKey: start, Limit: 10})
		if res.Revision != all.Revision {
			t.Fatalf("page %d at revision %d, want %d", page, res.Revision, all.Revision)
		}
		got = append(got, keys(res.KVs)...)
		if wantMore := len(got) < len(want); res.More != wantMore {
			t.Fatalf("page %d: More=%v after %d keys", page, res.More, len(got))
		}
		if !res.More {
			break
		}
		start = res.KVs[len(res.KVs)-1].Key + "\x00"
	}
	if !slices.Equal(got, want) {
		t.Fatalf("paged list = %v", got)
	}
	exact := mustList(t, s, "/page/", storage.ListOptions{Limit: 25})
	if len(exact.KVs) != 25 || exact.More {
		t.Fatalf("Limit equal to the count: %d keys, More=%v", len(exact.KVs), exact.More)
	}
	empty := mustList(t, s, "/nothing/", storage.ListOptions{})
	if len(empty.KVs) != 0 || empty.More || empty.Revision != all.Revision {
		t.Fatalf("empty list = %+v", empty)
	}
}

// testListAtRevision: a list at the current revision is a plain list; a list
// at an older one is either the exact past state or ErrExpired.
func testListAtRevision(t *testing.T, h *harness) {
	s := h.store()
	r1 := mustCreate(t, s, "/at/a", "a1")
	mustCreate(t, s, "/at/b", "b1")
	past := mustList(t, s, "/at/", storage.ListOptions{})
	mustUpdate(t, s, "/at/a", "a2", r1)
	mustDelete(t, s, "/at/b", 0)
	mustCreate(t, s, "/at/c", "c1")

	now := mustList(t, s, "/at/", storage.ListOptions{Revision: s.Revision()})
	if got := keys(now.KVs); !slices.Equal(got, []string{"/at/a", "/at/c"}) {
		t.Fatalf("list at current revision = %v", got)
	}
	old, err := s.List(ctx(t), "/at/", storage.ListOptions{Revision: past.Revision})
	if errors.Is(err, storage.ErrExpired) {
		return
	}
	if err != nil {
		t.Fatalf("List at %d: %v", past.Revision, err)
	}
	if old.Revision != past.Revision || len(old.KVs) != len(past.KVs) {
		t.Fatalf("list at %d = %+v, want %+v", past.Revision, old, past)
	}
	for i := range old.KVs {
		checkKV(t, "list at older revision", old.KVs[i], past.KVs[i])
	}
	page := mustList(t, s, "/at/", storage.ListOptions{Revision: past.Revision, StartKey: "/at/b", Limit: 1})
	if got := keys(page.KVs); !slices.Equal(got, []string{"/at/b"}) || page.More {
		t.Fatalf("page of the list at %d = %v more=%v", past.Revision, got, page.More)
	}
}
