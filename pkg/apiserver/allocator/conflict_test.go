package allocator

import (
	"context"
	"errors"
	"net/netip"
	"testing"

	"github.com/miniapi/miniapi/pkg/storage"
)

// interloper is the real store, except that before each of this
// allocator's writes another writer changes the key, as a second server
// could between the read and the write.
type interloper struct {
	storage.Store
	times  int // how many writes to get in before; <0: all
	before func()
}

func (s *interloper) Update(ctx context.Context, key string, value []byte, rev int64) (int64, error) {
	if s.times != 0 {
		s.times--
		s.before()
	}
	return s.Store.Update(ctx, key, value, rev)
}

// TestLostRaceIsRetried: a write that loses the compare-and-swap reads the
// key again and keeps the other writer's allocation.
func TestLostRaceIsRetried(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	other := newIPRange(t, s, "10.96.0.0/24")
	if err := other.Allocate(ctx, netip.MustParseAddr("10.96.0.5")); err != nil {
		t.Fatal(err)
	}
	racing := &interloper{Store: s, times: 1, before: func() {
		if err := other.Allocate(ctx, netip.MustParseAddr("10.96.0.20")); err != nil {
			t.Error(err)
		}
	}}
	r := newIPRange(t, racing, "10.96.0.0/24")
	if err := r.Allocate(ctx, netip.MustParseAddr("10.96.0.10")); err != nil {
		t.Fatal(err)
	}
	for _, ip := range []string{"10.96.0.5", "10.96.0.10", "10.96.0.20"} {
		if has, err := other.Has(ctx, netip.MustParseAddr(ip)); err != nil || !has {
			t.Fatalf("Has(%s) = %v, %v", ip, has, err)
		}
	}
	if n := storedCount(t, s, ipKey); n != 3 {
		t.Fatalf("stored record holds %d values, want 3", n)
	}
}

// TestLostRaceAfterRetryAnswersTaken: when the other writer took the very
// value asked for, the retry answers "already allocated".
func TestLostRaceAfterRetryAnswersTaken(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	other := newPortRange(t, s, "30000-32767")
	if err := other.Allocate(ctx, 30001); err != nil {
		t.Fatal(err)
	}
	racing := &interloper{Store: s, times: 1, before: func() {
		if err := other.Allocate(ctx, 30080); err != nil {
			t.Error(err)
		}
	}}
	r := newPortRange(t, racing, "30000-32767")
	if err := r.Allocate(ctx, 30080); !errors.Is(err, ErrPortAllocated) {
		t.Fatalf("Allocate of a port taken mid-race = %v, want ErrPortAllocated", err)
	}
}

// TestEndlessRaceGivesUp: an update that loses every round stops after
// maxAttempts with ErrContended, having written nothing of its own.
func TestEndlessRaceGivesUp(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	other := newPortRange(t, s, "30000-32767")
	if err := other.Allocate(ctx, 30001); err != nil {
		t.Fatal(err)
	}
	racing := &interloper{Store: s, times: -1, before: func() {
		if _, err := other.AllocateNext(ctx); err != nil {
			t.Error(err)
		}
	}}
	r := newPortRange(t, racing, "30000-32767")
	if err := r.Allocate(ctx, 30080); !errors.Is(err, ErrContended) {
		t.Fatalf("Allocate that always loses = %v, want ErrContended", err)
	}
	if has, err := other.Has(ctx, 30080); err != nil || has {
		t.Fatalf("Has(30080) = %v, %v after giving up", has, err)
	}
	if n := storedCount(t, s, portKey); n != 1+maxAttempts {
		t.Fatalf("stored record holds %d values, want %d", n, 1+maxAttempts)
	}
}
