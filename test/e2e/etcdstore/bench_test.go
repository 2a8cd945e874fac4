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
