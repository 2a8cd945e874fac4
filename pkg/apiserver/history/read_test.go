package history

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/miniapi/miniapi/pkg/storage"
	"github.com/miniapi/miniapi/pkg/storage/boltstore"
)

func openStore(t *testing.T, historySize int) storage.Store {
	t.Helper()
	s, err := boltstore.Open(filepath.Join(t.TempDir(), "db"), boltstore.Options{HistorySize: historySize, ProgressInterval: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// check returns a function that passes a call's value on and fails the
// test on its error.
func check[T any](t *testing.T) func(T, error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

type shape struct {
	value   string
	deleted bool
	oldest  bool
}

func shapes(revs []Revision) []shape {
	out := make([]shape, len(revs))
	for i, r := range revs {
		out[i] = shape{string(r.KV.Value), r.Deleted, r.Oldest}
	}
	return out
}

func TestReadKeepsOnlyTheKey(t *testing.T) {
	ctx := context.Background()
	rev, read := check[int64](t), check[[]Revision](t)
	s := openStore(t, 100)
	rev(s.Create(ctx, "/x/seed", []byte("seed"))) // revision 1, never watchable
	r1 := rev(s.Create(ctx, "/x/web", []byte("v1")))
	rev(s.Create(ctx, "/x/web-1", []byte("other")))
	r2 := rev(s.Update(ctx, "/x/web", []byte("v2"), r1))
	rev(s.Update(ctx, "/x/web", []byte("v3"), r2))
	rev(s.Create(ctx, "/x/web-2", []byte("other")))

	revs := read(Read(ctx, s, "/x/web"))
	want := []shape{{"v1", false, false}, {"v2", false, false}, {"v3", false, false}}
	if got := shapes(revs); !equalShapes(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if revs[0].KV.CreateRevision != revs[0].KV.ModRevision || revs[2].KV.ModRevision != r2+1 {
		t.Errorf("revisions: %+v", revs)
	}
}

func TestReadDeletedAndRecreated(t *testing.T) {
	ctx := context.Background()
	rev, del, read := check[int64](t), check[storage.KV](t), check[[]Revision](t)
	s := openStore(t, 100)
	rev(s.Create(ctx, "/x/seed", []byte("seed")))
	rev(s.Create(ctx, "/x/web", []byte("v1")))
	del(s.Delete(ctx, "/x/web", 0))
	rev(s.Create(ctx, "/x/web", []byte("again")))
	del(s.Delete(ctx, "/x/web", 0))
	rev(s.Create(ctx, "/x/web-1", []byte("other")))

	revs := read(Read(ctx, s, "/x/web"))
	want := []shape{{"v1", false, false}, {"v1", true, false}, {"again", false, false}, {"again", true, false}}
	if got := shapes(revs); !equalShapes(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

func TestReadNeverExisted(t *testing.T) {
	ctx := context.Background()
	rev := check[int64](t)
	s := openStore(t, 100)
	rev(s.Create(ctx, "/x/web-1", []byte("other")))
	if _, err := Read(ctx, s, "/x/web"); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("err %v, want ErrNotFound", err)
	}
}

// TestReadAfterTrim: when the kept history no longer reaches the create,
// the state before the oldest kept change comes first, marked Oldest; a
// key with no kept change is its current state alone.
func TestReadAfterTrim(t *testing.T) {
	ctx := context.Background()
	rev, read := check[int64](t), check[[]Revision](t)
	s := openStore(t, 3)
	r := rev(s.Create(ctx, "/x/web", []byte("v1")))
	rev(s.Create(ctx, "/x/quiet", []byte("q1")))
	r = rev(s.Update(ctx, "/x/web", []byte("v2"), r))
	for i := range 4 {
		rev(s.Create(ctx, "/x/filler-"+string(rune('a'+i)), []byte("f")))
	}
	rev(s.Update(ctx, "/x/web", []byte("v3"), r))

	revs := read(Read(ctx, s, "/x/web"))
	want := []shape{{"v2", false, true}, {"v3", false, false}}
	if got := shapes(revs); !equalShapes(got, want) {
		t.Errorf("web: got %+v, want %+v", got, want)
	}
	revs = read(Read(ctx, s, "/x/quiet"))
	want = []shape{{"q1", false, true}}
	if got := shapes(revs); !equalShapes(got, want) {
		t.Errorf("quiet: got %+v, want %+v", got, want)
	}
}

func equalShapes(a, b []shape) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
