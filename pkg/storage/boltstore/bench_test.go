package boltstore_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/miniapi/miniapi/pkg/storage"
	"github.com/miniapi/miniapi/pkg/storage/boltstore"
)

// BenchmarkCreate writes ~1 KB pod JSON values from 1, 16 and 64 concurrent
// writers through the Store, next to raw bbolt puts of the same bytes, with
// the same bbolt options, on the same disk, in the same run: db.Batch (the
// batched baseline; note its 10 ms MaxBatchDelay, which a lone writer waits
// out on every put) and db.Update (one transaction per put). Each reports
// ops/s; the store also reports its rate over each raw rate measured just
// before it (x-raw-batch, x-raw-update). The store writes more per op than
// a raw put (the event history and the revision), and like both baselines
// acknowledges a write only after its fsync.
func BenchmarkCreate(b *testing.B) {
	for _, writers := range []int{1, 16, 64} {
		var batch, update float64
		b.Run(fmt.Sprintf("writers=%d/raw-bbolt-batch", writers), func(b *testing.B) {
			batch = benchRaw(b, writers, (*bolt.DB).Batch)
		})
		b.Run(fmt.Sprintf("writers=%d/raw-bbolt-update", writers), func(b *testing.B) {
			update = benchRaw(b, writers, (*bolt.DB).Update)
		})
		b.Run(fmt.Sprintf("writers=%d/store", writers), func(b *testing.B) {
			ops := benchStoreCreate(b, writers)
			if batch > 0 && update > 0 {
				b.ReportMetric(ops/batch, "x-raw-batch")
				b.ReportMetric(ops/update, "x-raw-update")
			}
		})
	}
}

// runWriters shares b.N writes among n goroutines and returns ops/s.
func runWriters(b *testing.B, n int, write func(i int) error) float64 {
	runWritersNoReport(b, n, write)
	b.StopTimer()
	ops := float64(b.N) / b.Elapsed().Seconds()
	b.ReportMetric(ops, "ops/s")
	return ops
}

func benchStoreCreate(b *testing.B, writers int) float64 {
	s, err := boltstore.Open(filepath.Join(b.TempDir(), "store.db"), boltstore.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	keys, values := benchData(b.N)
	return runWriters(b, writers, func(i int) error {
		_, err := s.Create(context.Background(), keys[i], values[i])
		return err
	})
}

func benchRaw(b *testing.B, writers int, run func(*bolt.DB, func(*bolt.Tx) error) error) float64 {
	db, err := bolt.Open(filepath.Join(b.TempDir(), "raw.db"), 0o600, &bolt.Options{
		NoFreelistSync: true, FreelistType: bolt.FreelistMapType,
	})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	bucket := []byte("kv")
	if err := db.Update(func(tx *bolt.Tx) error { _, err := tx.CreateBucket(bucket); return err }); err != nil {
		b.Fatal(err)
	}
	keys, values := benchData(b.N)
	return runWriters(b, writers, func(i int) error {
		return run(db, func(tx *bolt.Tx) error {
			return tx.Bucket(bucket).Put([]byte(keys[i]), values[i])
		})
	})
}

// benchData makes the keys and values for writes 1..n.
func benchData(n int) ([]string, [][]byte) {
	keys := make([]string, n+1)
	values := make([][]byte, n+1)
	for i := 1; i <= n; i++ {
		keys[i] = fmt.Sprintf("/pods/default/web-%08d", i)
		values[i] = []byte(podJSON(keys[i]))
	}
	return keys, values
}

// BenchmarkWatchFanout delivers one write stream to 1,000 watchers (and to
// one, as the baseline) of the same prefix, each read by its own goroutine.
// It reports the deliveries per second summed over the watchers and the
// time from a transaction's commit (its fsync) to the moment the last
// watcher received the transaction's last event, at the median and p99.
// The stream comes from 1 writer (one event per transaction) and from 16
// (batches of events).
func BenchmarkWatchFanout(b *testing.B) {
	for _, writers := range []int{1, 16} {
		for _, watchers := range []int{1, 1000} {
			b.Run(fmt.Sprintf("writers=%d/watchers=%d", writers, watchers), func(b *testing.B) {
				benchFanout(b, writers, watchers)
			})
		}
	}
}

func benchFanout(b *testing.B, writers, watchers int) {
	committed := make([]atomic.Int64, b.N+1) // revision -> commit time, for each transaction's last revision
	received := make([]atomic.Int64, b.N+1)  // revision -> when the last watcher got it
	var s *boltstore.Store
	s, err := boltstore.Open(filepath.Join(b.TempDir(), "fanout.db"), boltstore.Options{
		OnCommit: func(int, time.Duration) { committed[s.Revision()].Store(time.Now().UnixNano()) },
	})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	var readers sync.WaitGroup
	for range watchers {
		w, err := s.Watch(b.Context(), "/pods/", 0)
		if err != nil {
			b.Fatal(err)
		}
		readers.Go(func() { readAll(b, w, b.N, received) })
	}
	keys, values := benchData(b.N)
	start := time.Now()
	runWritersNoReport(b, writers, func(i int) error {
		_, err := s.Create(context.Background(), keys[i], values[i])
		return err
	})
	readers.Wait()
	elapsed := time.Since(start)
	b.ReportMetric(float64(b.N*watchers)/elapsed.Seconds(), "deliveries/s")
	var lat []time.Duration
	for rev := range committed {
		if c := committed[rev].Load(); c != 0 {
			lat = append(lat, time.Duration(received[rev].Load()-c))
		}
	}
	slices.Sort(lat)
	if len(lat) > 0 {
		b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-commit-to-last-us")
		b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-commit-to-last-us")
	}
}

// readAll reads n change events and records, per revision, the latest time
// any watcher received it.
func readAll(b *testing.B, w storage.Watcher, n int, received []atomic.Int64) {
	defer w.Stop()
	for got := 0; got < n; {
		ev, ok := <-w.Events()
		if !ok {
			b.Errorf("watcher ended after %d of %d events: %v", got, n, w.Err())
			return
		}
		if ev.Type == storage.Progress {
			continue
		}
		got++
		now := time.Now().UnixNano()
		slot := &received[ev.KV.ModRevision]
		for old := slot.Load(); now > old && !slot.CompareAndSwap(old, now); old = slot.Load() {
		}
	}
}

// runWritersNoReport shares b.N writes among n goroutines.
func runWritersNoReport(b *testing.B, n int, write func(i int) error) {
	var next atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	for range n {
		wg.Go(func() {
			for i := next.Add(1); i <= int64(b.N); i = next.Add(1) {
				if err := write(int(i)); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
}

// BenchmarkRead gets one key and lists all of 10,000 ~1 KB values, first
// while the history holds every value (each key's record refers to its
// event), then, as the baseline in the same run, after Compact trimmed the
// history and wrote the values back into the records. Each read after the
// baseline reports the first's time over its own (in-events/in-records).
func BenchmarkRead(b *testing.B) {
	const n = 10000
	s, err := boltstore.Open(filepath.Join(b.TempDir(), "store.db"), boltstore.Options{HistorySize: n, NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	keys, values := benchData(n)
	var wg sync.WaitGroup
	for i := 1; i <= n; i++ {
		wg.Go(func() {
			if _, err := s.Create(ctx, keys[i], values[i]); err != nil {
				b.Error(err)
			}
		})
	}
	wg.Wait()
	get := func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			if _, err := s.Get(ctx, keys[1+i%n]); err != nil {
				b.Fatal(err)
			}
		}
	}
	list := func(b *testing.B) {
		for b.Loop() {
			res, err := s.List(ctx, "/pods/", storage.ListOptions{})
			if err != nil || len(res.KVs) != n {
				b.Fatalf("listed %d: %v", len(res.KVs), err)
			}
		}
	}
	var perOp [2]float64
	for i, read := range []func(*testing.B){get, list} {
		name := []string{"get", "list"}[i]
		b.Run(name+"/values-in-events", func(b *testing.B) {
			read(b)
			perOp[i] = float64(b.Elapsed().Nanoseconds()) / float64(b.N)
		})
	}
	if _, err := s.Compact(ctx, storage.CompactOptions{KeepHistory: 0}); err != nil {
		b.Fatal(err)
	}
	for i, read := range []func(*testing.B){get, list} {
		name := []string{"get", "list"}[i]
		b.Run(name+"/values-in-records", func(b *testing.B) {
			read(b)
			if perOp[i] > 0 {
				b.ReportMetric(perOp[i]/(float64(b.Elapsed().Nanoseconds())/float64(b.N)), "in-events/in-records")
			}
		})
	}
}
