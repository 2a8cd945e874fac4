package boltstore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/miniapi/miniapi/pkg/storage"
)

// fillToQuota creates keys with values of size bytes until the store
// refuses one, and returns the keys it created.
func fillToQuota(t *testing.T, s *Store, prefix string, size int) []string {
	t.Helper()
	value := []byte(strings.Repeat("x", size))
	var keys []string
	for i := 0; ; i++ {
		key := fmt.Sprintf("%s%05d", prefix, i)
		_, err := s.Create(t.Context(), key, value)
		if errors.Is(err, storage.ErrNoSpace) {
			if len(keys) == 0 {
				t.Fatal("the first create was refused")
			}
			return keys
		}
		if err != nil {
			t.Fatalf("Create(%s): %v", key, err)
		}
		keys = append(keys, key)
		if i > 100000 {
			t.Fatal("no quota error after 100000 creates")
		}
	}
}

func TestQuotaRefusesCreatesAndUpdatesButNotReadsAndDeletes(t *testing.T) {
	dir := t.TempDir()
	const quota = 512 << 10
	s := open(t, filepath.Join(dir, "db"), Options{QuotaBytes: quota})
	keys := fillToQuota(t, s, "/q/", 4096)
	// A big value may be refused while a small one still fits: fill on
	// with small ones until the alarm is up.
	for i := 0; s.SpaceStatus().Alarm == AlarmNone; i++ {
		key := fmt.Sprintf("/q/small%05d", i)
		if _, err := s.Create(t.Context(), key, []byte("x")); err != nil {
			break
		}
		keys = append(keys, key)
	}

	_, err := s.Create(t.Context(), "/q/more", []byte("x"))
	if !errors.Is(err, storage.ErrNoSpace) {
		t.Fatalf("Create past the quota: %v, want ErrNoSpace", err)
	}
	if strings.Contains(err.Error(), dir) {
		t.Errorf("error names the data directory: %v", err)
	}
	if st := s.SpaceStatus(); st.Alarm != storage.AlarmNoSpace || st.AlarmReason != "quota" || st.InUseBytes < quota-spaceHysteresis(quota) {
		t.Errorf("Status = %+v, want the NOSPACE alarm for the quota", st)
	}
	kv, err := s.Get(t.Context(), keys[0])
	if err != nil {
		t.Fatalf("Get past the quota: %v", err)
	}
	if _, err := s.Update(t.Context(), keys[0], []byte("y"), kv.ModRevision); !errors.Is(err, storage.ErrNoSpace) {
		t.Errorf("Update past the quota: %v, want ErrNoSpace", err)
	}
	if _, err := s.Update(storage.ForDelete(t.Context()), keys[0], []byte("marked"), kv.ModRevision); err != nil {
		t.Errorf("Update marked ForDelete past the quota: %v", err)
	}
	list, err := s.List(t.Context(), "/q/", storage.ListOptions{})
	if err != nil || len(list.KVs) != len(keys) {
		t.Fatalf("List past the quota: %d keys, %v; want %d", len(list.KVs), err, len(keys))
	}
	for _, k := range keys {
		if _, err := s.Delete(t.Context(), k, 0); err != nil {
			t.Fatalf("Delete(%s) past the quota: %v", k, err)
		}
	}
}

func TestQuotaRecoversAfterDeletesAndHistoryTrim(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	s := open(t, path, Options{QuotaBytes: 512 << 10})
	keys := fillToQuota(t, s, "/q/", 4096)
	for _, k := range keys {
		if _, err := s.Delete(t.Context(), k, 0); err != nil {
			t.Fatal(err)
		}
	}
	// The deletes' events still hold the values: the history is what
	// keeps the space, until it is trimmed.
	res, err := s.Compact(t.Context(), storage.CompactOptions{KeepHistory: 0})
	if err != nil {
		t.Fatalf("Compact: %v", err)
	}
	if res.TrimmedEvents < int64(2*len(keys)) {
		t.Errorf("trimmed %d events, want at least %d", res.TrimmedEvents, 2*len(keys))
	}
	if res.After.Alarm != AlarmNone {
		t.Errorf("alarm after the trim: %+v", res.After)
	}
	if res.After.FileBytes >= res.Before.FileBytes {
		t.Errorf("file %d bytes after compaction, %d before: want smaller", res.After.FileBytes, res.Before.FileBytes)
	}
	if _, err := s.Create(t.Context(), "/q/again", []byte("x")); err != nil {
		t.Fatalf("Create after recovery: %v", err)
	}
	// Watches agree with the trimmed history: an old revision is gone.
	if _, err := s.Watch(t.Context(), "/q/", 1); !errors.Is(err, storage.ErrExpired) {
		t.Errorf("Watch from revision 1 after the trim: %v, want ErrExpired", err)
	}
}

func TestCompactKeepsDataAndShrinksFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	s, err := Open(path, Options{HistorySize: 10})
	if err != nil {
		t.Fatal(err)
	}
	value := []byte(strings.Repeat("v", 8192))
	for i := range 300 {
		if _, err := s.Create(t.Context(), fmt.Sprintf("/c/%03d", i), value); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 290 {
		if _, err := s.Delete(t.Context(), fmt.Sprintf("/c/%03d", i), 0); err != nil {
			t.Fatal(err)
		}
	}
	rev := s.Revision()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	before := fileSize(t, path)

	s = open(t, path, Options{HistorySize: 10, CompactOnOpen: true})
	if after := fileSize(t, path); after*2 > before {
		t.Errorf("file %d bytes after compaction on open, %d before: want less than half", after, before)
	}
	if s.Revision() != rev {
		t.Errorf("revision %d after compaction, want %d", s.Revision(), rev)
	}
	list, err := s.List(t.Context(), "/c/", storage.ListOptions{})
	if err != nil || len(list.KVs) != 10 || list.KVs[0].Key != "/c/290" {
		t.Fatalf("List after compaction: %d keys, %v", len(list.KVs), err)
	}
	// Online: the store goes on writing and reading after the swap.
	if _, err := s.Compact(t.Context(), storage.CompactOptions{KeepHistory: -1}); err != nil {
		t.Fatalf("Compact: %v", err)
	}
	if _, err := s.Create(t.Context(), "/c/new", value); err != nil {
		t.Fatalf("Create after Compact: %v", err)
	}
	if _, err := s.Get(t.Context(), "/c/295"); err != nil {
		t.Fatalf("Get after Compact: %v", err)
	}
}

func TestOpenCompactsFileLargerThanQuota(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	s, err := Open(path, Options{HistorySize: 10})
	if err != nil {
		t.Fatal(err)
	}
	value := []byte(strings.Repeat("v", 8192))
	for i := range 200 {
		key := fmt.Sprintf("/o/%03d", i)
		if _, err := s.Create(t.Context(), key, value); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Delete(t.Context(), key, 0); err != nil {
			t.Fatal(err)
		}
	}
	_ = s.Close()
	before := fileSize(t, path)
	s = open(t, path, Options{HistorySize: 10, QuotaBytes: before / 2})
	if after := fileSize(t, path); after >= before {
		t.Errorf("file %d bytes after opening with a quota of %d, %d before: want it compacted", after, before/2, before)
	}
	if _, err := s.Create(context.Background(), "/o/new", value); err != nil {
		t.Fatalf("Create: %v", err)
	}
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

func TestPathlessHidesTheDatabasePath(t *testing.T) {
	for _, path := range []string{"/srv/data/miniapi.db", "miniapi.db", "data/miniapi.db"} {
		err := &pathless{err: fmt.Errorf("write %s: no space left on device; open %s.compact: x.", path, path), path: path}
		msg := err.Error()
		if strings.Contains(msg, path) || strings.Contains(msg, "/srv") {
			t.Errorf("%s: message %q names the path", path, msg)
		}
		if !strings.HasSuffix(msg, "x.") {
			t.Errorf("%s: message %q lost its text", path, msg)
		}
	}
}
