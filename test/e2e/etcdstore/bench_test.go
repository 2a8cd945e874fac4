package etcdstore

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/miniapi/miniapi/pkg/storage"
	"github.com/miniapi/miniapi/pkg/storage/boltstore"
	"github.com/miniapi/miniapi/pkg/storage/etcd"
)

// BenchmarkCreate compares creates of ~1 KB values through the two
// backends in the same run, on the same disk, both fsyncing every
// acknowledged write: bbolt in process, and an embedded etcd (one member,
// on loopback) through the etcd Store. Reports creates/s.
func BenchmarkCreate(b *testing.B) {
	for _, writers := range []int{1, 16} {
		b.Run(fmt.Sprintf("writers=%d/bbolt", writers), func(b *testing.B) {
			s, err := boltstore.Open(filepath.Join(b.TempDir(), "b.db"), boltstore.Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			benchCreate(b, s, writers)
		})
		b.Run(fmt.Sprintf("writers=%d/etcd", writers), func(b *testing.B) {
			endpoint, stop := startEtcdSynced(b, b.TempDir())
			defer stop()
			s, err := etcd.Open(context.Background(), etcd.Options{Endpoints: []string{endpoint}})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			benchCreate(b, s, writers)
		})
	}
}

func benchCreate(b *testing.B, s storage.Store, writers int) {
	value := []byte(strings.Repeat("x", 1024))
	var n atomic.Int64
	b.SetParallelism(writers)
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			key := fmt.Sprintf("/bench/%09d", n.Add(1))
			if _, err := s.Create(context.Background(), key, value); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "creates/s")
}

// BenchmarkWatchFanout: 50 watches of one resource, ten in each of five
// namespaces, while 16 writers create b.N objects spread over the
// namespaces (embedded etcd without fsync, so that the fan-out, not the
// disk, is measured). Reports the events delivered per second, over all
// watches, until the last watch has every event, and the etcd watches
// the 50 watches took.
func BenchmarkWatchFanout(b *testing.B) {
	endpoint, stop := startEtcd(b, b.TempDir())
	defer stop()
	s, err := etcd.Open(context.Background(), etcd.Options{Endpoints: []string{endpoint}})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	const watchers, namespaces = 50, 5
	base := etcdWatches(b, endpoint)
	errs := make(chan error, watchers)
	for i := range watchers {
		ns := i % namespaces
		w, err := s.Watch(context.Background(), fmt.Sprintf("/core/configmaps/ns%d/", ns), 0)
		if err != nil {
			b.Fatal(err)
		}
		defer w.Stop()
		want := b.N / namespaces
		if ns < b.N%namespaces {
			want++
		}
		go func() {
			for n := 0; n < want; {
				ev, ok := <-w.Events()
				if !ok {
					errs <- fmt.Errorf("watch ended after %d of %d events: %v", n, want, w.Err())
					return
				}
				if ev.Type != storage.Progress {
					n++
				}
			}
			errs <- nil
		}()
	}
	var n atomic.Int64
	b.SetParallelism(16)
	b.ResetTimer()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := n.Add(1) - 1
			key := fmt.Sprintf("/core/configmaps/ns%d/cm-%09d", i%namespaces, i)
			if _, err := s.Create(context.Background(), key, []byte("x")); err != nil {
				b.Error(err)
				return
			}
		}
	})
	for range watchers {
		if err := <-errs; err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)*watchers/namespaces/time.Since(start).Seconds(), "events/s")
	b.ReportMetric(float64(etcdWatches(b, endpoint)-base), "etcd-watches")
}
