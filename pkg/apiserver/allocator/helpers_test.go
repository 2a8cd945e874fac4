package allocator

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/miniapi/miniapi/pkg/storage"
	"github.com/miniapi/miniapi/pkg/storage/boltstore"
)

const (
	ipKey   = "/ranges/serviceips"
	portKey = "/ranges/servicenodeports"
)

// openStore opens the real bbolt store at path and closes it when the test
// ends (closing twice is fine).
func openStore(t testing.TB, path string) *boltstore.Store {
	t.Helper()
	s, err := boltstore.Open(path, boltstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func newStore(t testing.TB) *boltstore.Store {
	return openStore(t, filepath.Join(t.TempDir(), "miniapi.db"))
}

func newIPRange(t testing.TB, s storage.Store, cidr string) *IPRange {
	t.Helper()
	r, err := NewIPRange(s, ipKey, cidr)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func newPortRange(t testing.TB, s storage.Store, ports string) *PortRange {
	t.Helper()
	r, err := NewPortRange(s, portKey, ports)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// storedCount reads the key's record straight from the store.
func storedCount(t testing.TB, s storage.Store, key string) int {
	t.Helper()
	kv, err := s.Get(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	var rec record
	if err := json.Unmarshal(kv.Value, &rec); err != nil {
		t.Fatal(err)
	}
	return rec.Count
}
