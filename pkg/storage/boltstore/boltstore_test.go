package boltstore_test

import (
	"path/filepath"
	"testing"

	"github.com/miniapi/miniapi/pkg/storage"
	"github.com/miniapi/miniapi/pkg/storage/boltstore"
	"github.com/miniapi/miniapi/pkg/storage/storagetest"
)

func openStore(t testing.TB, dir string, cfg storagetest.Config) storage.Store {
	t.Helper()
	s, err := boltstore.Open(filepath.Join(dir, "miniapi.db"), boltstore.Options{
		HistorySize:      cfg.HistorySize,
		WatcherBuffer:    cfg.WatcherBuffer,
		ProgressInterval: cfg.ProgressInterval,
	})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return s
}

func TestConformance(t *testing.T) {
	storagetest.Run(t, openStore)
}
