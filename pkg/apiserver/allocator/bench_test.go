package allocator

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkAllocateNext takes ClusterIPs from the default 10.96.0.0/12 with
// 0, 1000 and 10000 addresses already taken, next to a plain store Update
// of a value as large as the range's record, on the same kind of store in
// the same run: the allocator's cost over the write it cannot avoid
// (reading the key, decoding the set when another writer changed it,
// encoding it). Each reports value-bytes, the size of the record written.
func BenchmarkAllocateNext(b *testing.B) {
	ctx := context.Background()
	for _, used := range []int{0, 1000, 10000} {
		var size int
		b.Run(fmt.Sprintf("used=%d/allocator", used), func(b *testing.B) {
			s := newStore(b)
			r := newIPRange(b, s, "10.96.0.0/12")
			inUse := make([]string, 0, used)
			for range used {
				inUse = append(inUse, r.addr(rand.IntN(r.Size())).String())
			}
			if _, err := r.Repair(ctx, inUse, ReleaseUnused); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if _, err := r.AllocateNext(ctx); err != nil {
					b.Fatal(err)
				}
			}
			kv, err := s.Get(ctx, ipKey)
			if err != nil {
				b.Fatal(err)
			}
			size = len(kv.Value)
			b.ReportMetric(float64(size), "value-bytes")
		})
		b.Run(fmt.Sprintf("used=%d/store-update", used), func(b *testing.B) {
			s := newStore(b)
			value := make([]byte, size)
			rev, err := s.Create(ctx, ipKey, value)
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if rev, err = s.Update(ctx, ipKey, value, rev); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(size), "value-bytes")
		})
	}
}

// BenchmarkRecord measures the CPU side of one update in a /12 with 10000
// addresses taken, which the fsync of BenchmarkAllocateNext hides: copying
// the set, encoding the record, and decoding it (done only when another
// writer changed the key).
func BenchmarkRecord(b *testing.B) {
	const size = 1<<20 - 2
	set := newBitmap(size)
	for set.count < 10000 {
		set.set(rand.IntN(size))
	}
	value, err := encodeRecord("10.96.0.0/12", set)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("clone+encode", func(b *testing.B) {
		for b.Loop() {
			if _, err := encodeRecord("10.96.0.0/12", set.clone()); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("decode", func(b *testing.B) {
		for b.Loop() {
			if _, _, err := decodeRecord(value, "10.96.0.0/12", size); err != nil {
				b.Fatal(err)
			}
		}
	})
}
