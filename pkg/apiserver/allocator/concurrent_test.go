package allocator

import (
	"context"
	"errors"
	"net/netip"
	"sync"
	"testing"
)

// servers is how many allocators share one key in these tests: each stands
// for a miniapi server on the same store, with its own lock and cache, so
// their updates really race in the store.
const servers = 4

// TestConcurrentAllocateNextDistinct: 64 goroutines over 4 allocators on one
// key never get the same address, and the stored record holds all 64.
func TestConcurrentAllocateNextDistinct(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	var ranges [servers]*IPRange
	for i := range ranges {
		ranges[i] = newIPRange(t, s, "10.96.0.0/24")
	}
	got := make([]netip.Addr, 64)
	var wg sync.WaitGroup
	for g := range got {
		wg.Go(func() {
			ip, err := ranges[g%servers].AllocateNext(ctx)
			if err != nil {
				t.Error(err)
			}
			got[g] = ip
		})
	}
	wg.Wait()
	seen := map[netip.Addr]bool{}
	for _, ip := range got {
		if seen[ip] {
			t.Fatalf("%s handed out twice", ip)
		}
		seen[ip] = true
	}
	fresh := newIPRange(t, s, "10.96.0.0/24")
	for ip := range seen {
		if has, err := fresh.Has(ctx, ip); err != nil || !has {
			t.Fatalf("Has(%s) = %v, %v after the race", ip, has, err)
		}
	}
	if n := storedCount(t, s, ipKey); n != 64 {
		t.Fatalf("stored record holds %d values, want 64", n)
	}
}

// TestConcurrentExhaustion: 72 goroutines race for the 64 ports of a
// range; exactly 64 get distinct ports and 8 get ErrFull.
func TestConcurrentExhaustion(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	var ranges [servers]*PortRange
	for i := range ranges {
		ranges[i] = newPortRange(t, s, "30000-30063")
	}
	var (
		mu   sync.Mutex
		got  = map[int]bool{}
		full int
		wg   sync.WaitGroup
	)
	for g := range 72 {
		wg.Go(func() {
			p, err := ranges[g%servers].AllocateNext(ctx)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case errors.Is(err, ErrFull):
				full++
			case err != nil:
				t.Error(err)
			case got[p]:
				t.Errorf("port %d handed out twice", p)
			default:
				got[p] = true
			}
		})
	}
	wg.Wait()
	if len(got) != 64 || full != 8 {
		t.Fatalf("%d distinct ports and %d ErrFull, want 64 and 8", len(got), full)
	}
}

// TestConcurrentAllocateSameValue: of 16 requests for one address, over 4
// allocators, exactly one wins.
func TestConcurrentAllocateSameValue(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	var ranges [servers]*IPRange
	for i := range ranges {
		ranges[i] = newIPRange(t, s, "10.96.0.0/12")
	}
	ip := netip.MustParseAddr("10.96.0.10")
	var (
		mu         sync.Mutex
		won, taken int
		wg         sync.WaitGroup
	)
	for g := range 16 {
		wg.Go(func() {
			err := ranges[g%servers].Allocate(ctx, ip)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				won++
			case errors.Is(err, ErrIPAllocated):
				taken++
			default:
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if won != 1 || taken != 15 {
		t.Fatalf("%d won and %d were told taken, want 1 and 15", won, taken)
	}
}
