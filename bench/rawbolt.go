package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	bolt "go.etcd.io/bbolt"
)

// rawBoltPuts is the durable-write baseline: the same values put into a
// fresh bbolt file on the same disk as miniapi's data dir, from the same
// number of goroutines, each put its own db.Batch call (bbolt joins
// concurrent calls into one fsynced transaction), with the bbolt options
// miniapi's store uses. It returns puts per second.
func rawBoltPuts(ctx context.Context, workDir, prefix string, values [][]byte, clients int) (float64, error) {
	dir, err := os.MkdirTemp(workDir, "rawbolt-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	db, err := bolt.Open(filepath.Join(dir, "raw.db"), 0o600, &bolt.Options{
		NoFreelistSync: true, FreelistType: bolt.FreelistMapType,
	})
	if err != nil {
		return 0, err
	}
	defer db.Close()
	bucket := []byte("objects")
	if err := db.Update(func(tx *bolt.Tx) error { _, err := tx.CreateBucket(bucket); return err }); err != nil {
		return 0, err
	}
	took, err := parallel(ctx, 0, len(values), clients, func(_ context.Context, i int) error {
		key := []byte(fmt.Sprintf("/pods/%s/pod-%07d", prefix, i))
		return db.Batch(func(tx *bolt.Tx) error { return tx.Bucket(bucket).Put(key, values[i]) })
	})
	if err != nil {
		return 0, err
	}
	return float64(len(values)) / took.Seconds(), nil
}
