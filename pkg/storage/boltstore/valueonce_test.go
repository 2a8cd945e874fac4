package boltstore

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/miniapi/miniapi/pkg/storage"
)

// TestCurrentValueStoredOnce checks that a key's current value is kept only
// in its latest event while the history holds that event, and is written
// back into the key's record by each way the history loses it: a trim by
// later writes, a reopen with a shorter history, and Compact. After each,
// Get, List and a list at an older revision still answer the value.
func TestCurrentValueStoredOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	s, err := Open(path, Options{HistorySize: 4})
	must(t, err)
	defer func() { _ = s.Close() }()
	ctx := context.Background()
	a := bytes.Repeat([]byte("a"), 1024)

	rev, err := s.Create(ctx, "/k/a", a)
	must(t, err)
	wantRecord(t, s, "/k/a", 16)
	wantValue(t, s, "/k/a", a)

	// Four more writes trim the create event: the value moves into the record.
	for i := range 4 {
		_, err := s.Create(ctx, fmt.Sprintf("/k/b%d", i), []byte("b"))
		must(t, err)
	}
	wantRecord(t, s, "/k/a", 16+len(a))
	wantValue(t, s, "/k/a", a)

	a2 := bytes.Repeat([]byte("A"), 512)
	rev, err = s.Update(ctx, "/k/a", a2, rev)
	must(t, err)
	wantRecord(t, s, "/k/a", 16)
	wantValue(t, s, "/k/a", a2)

	// A reopen with a history of one event keeps only the newest, /k/c's.
	_, err = s.Create(ctx, "/k/c", []byte("c"))
	must(t, err)
	must(t, s.Close())
	s, err = Open(path, Options{HistorySize: 1})
	must(t, err)
	wantRecord(t, s, "/k/a", 16+len(a2))
	wantValue(t, s, "/k/a", a2)
	must(t, s.Close())

	s, err = Open(path, Options{HistorySize: 4})
	must(t, err)
	a3 := []byte("a3")
	_, err = s.Update(ctx, "/k/a", a3, rev)
	must(t, err)
	wantRecord(t, s, "/k/a", 16)
	if _, err := s.Compact(ctx, storage.CompactOptions{KeepHistory: 0}); err != nil {
		t.Fatal(err)
	}
	wantRecord(t, s, "/k/a", 16+len(a3))
	wantValue(t, s, "/k/a", a3)
}

// TestListAtOlderRevisionWithValuesInEvents lists at a revision before an
// update and a delete, while the current values live in their events.
func TestListAtOlderRevisionWithValuesInEvents(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "db"), Options{})
	must(t, err)
	defer func() { _ = s.Close() }()
	ctx := context.Background()
	revA, err := s.Create(ctx, "/k/a", []byte("a1"))
	must(t, err)
	revB, err := s.Create(ctx, "/k/b", []byte("b1"))
	must(t, err)
	_, err = s.Update(ctx, "/k/a", []byte("a2"), revA)
	must(t, err)
	_, err = s.Delete(ctx, "/k/b", revB)
	must(t, err)
	_, err = s.Create(ctx, "/k/c", []byte("c1"))
	must(t, err)

	old, err := s.List(ctx, "/k/", storage.ListOptions{Revision: revB})
	must(t, err)
	if got := listed(old); got != "/k/a=a1 /k/b=b1 " {
		t.Fatalf("list at %d: %s", revB, got)
	}
	now, err := s.List(ctx, "/k/", storage.ListOptions{})
	must(t, err)
	if got := listed(now); got != "/k/a=a2 /k/c=c1 " {
		t.Fatalf("list now: %s", got)
	}
}

func listed(res storage.ListResult) string {
	var b bytes.Buffer
	for _, kv := range res.KVs {
		fmt.Fprintf(&b, "%s=%s ", kv.Key, kv.Value)
	}
	return b.String()
}

// wantRecord checks the length of key's record in the kv bucket: 16 when
// the value is in its event.
func wantRecord(t *testing.T, s *Store, key string, n int) {
	t.Helper()
	err := s.db.View(func(tx *bolt.Tx) error {
		if got := len(tx.Bucket(bucketKV).Get([]byte(key))); got != n {
			return fmt.Errorf("record of %s: %d bytes, want %d", key, got, n)
		}
		return nil
	})
	must(t, err)
}

// wantValue checks key's value through Get and List.
func wantValue(t *testing.T, s *Store, key string, want []byte) {
	t.Helper()
	kv, err := s.Get(context.Background(), key)
	must(t, err)
	if !bytes.Equal(kv.Value, want) {
		t.Fatalf("Get %s: %d bytes %.8q, want %d bytes %.8q", key, len(kv.Value), kv.Value, len(want), want)
	}
	res, err := s.List(context.Background(), key, storage.ListOptions{})
	must(t, err)
	if len(res.KVs) != 1 || !bytes.Equal(res.KVs[0].Value, want) {
		t.Fatalf("List %s: %d keys", key, len(res.KVs))
	}
}
