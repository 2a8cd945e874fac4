package allocator

import (
	"context"
	"errors"
	"net/netip"
	"slices"
	"testing"
)

func TestRepairMakesStateExactlyTheValuesInUse(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	r := newIPRange(t, s, "10.96.0.0/24")
	for _, ip := range []string{"10.96.0.1", "10.96.0.20", "10.96.0.30"} {
		if err := r.Allocate(ctx, netip.MustParseAddr(ip)); err != nil {
			t.Fatal(err)
		}
	}
	// .20 leaked (its Service was never stored); .40 was stored but its
	// allocation is missing.
	inUse := []string{"10.96.0.30", "10.96.0.1", "10.96.0.40", "10.1.2.3", "garbage", "10.96.0.30"}
	rep, err := r.Repair(ctx, inUse, ReleaseUnused)
	if err != nil {
		t.Fatal(err)
	}
	want := RepairReport{
		Added:      []string{"10.96.0.40"},
		Released:   []string{"10.96.0.20"},
		OutOfRange: []string{"10.1.2.3", "garbage"},
		Duplicates: []string{"10.96.0.30"},
		Recorded:   3,
	}
	if !sameReport(rep, want) {
		t.Fatalf("report %+v\nwant   %+v", rep, want)
	}
	for ip, taken := range map[string]bool{"10.96.0.1": true, "10.96.0.20": false, "10.96.0.30": true, "10.96.0.40": true} {
		if has, err := r.Has(ctx, netip.MustParseAddr(ip)); err != nil || has != taken {
			t.Errorf("Has(%s) = %v, %v after Repair, want %v", ip, has, err, taken)
		}
	}
	if n := storedCount(t, s, ipKey); n != 3 {
		t.Fatalf("stored record holds %d values, want 3", n)
	}

	// Nothing to repair: nothing is written.
	before := s.Revision()
	rep, err = r.Repair(ctx, []string{"10.96.0.1", "10.96.0.30", "10.96.0.40"}, ReleaseUnused)
	if err != nil || len(rep.Added)+len(rep.Released) != 0 {
		t.Fatalf("second Repair = %+v, %v", rep, err)
	}
	if s.Revision() != before {
		t.Fatal("a Repair that changed nothing wrote to the store")
	}
}

func TestRepairOfPortsOnEmptyStore(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	r := newPortRange(t, s, "30000-32767")
	if rep, err := r.Repair(ctx, nil, ReleaseUnused); err != nil || rep.Recorded != 0 || s.Revision() != 0 {
		t.Fatalf("Repair of nothing on an empty store = %+v, %v (revision %d)", rep, err, s.Revision())
	}
	rep, err := r.Repair(ctx, []int{30080, 80, 32767}, ReleaseUnused)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rep.Added, []string{"30080", "32767"}) || !slices.Equal(rep.OutOfRange, []string{"80"}) {
		t.Fatalf("report %+v", rep)
	}
	if err := r.Allocate(ctx, 30080); !errors.Is(err, ErrPortAllocated) {
		t.Fatalf("Allocate of a repaired port = %v", err)
	}
}

// TestRangeChanged: a server started with another range refuses to use the
// old record until Repair moves the values in use into the new range.
func TestRangeChanged(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	old := newIPRange(t, s, "10.96.0.0/24")
	if err := old.Allocate(ctx, netip.MustParseAddr("10.96.0.10")); err != nil {
		t.Fatal(err)
	}

	r := newIPRange(t, s, "10.96.0.0/16")
	err := r.Allocate(ctx, netip.MustParseAddr("10.96.0.11"))
	var changed *RangeChangedError
	if !errors.Is(err, ErrRangeChanged) || !errors.As(err, &changed) ||
		changed.Stored != "10.96.0.0/24" || changed.Configured != "10.96.0.0/16" {
		t.Fatalf("Allocate with a changed range = %v", err)
	}
	if _, err := r.Has(ctx, netip.MustParseAddr("10.96.0.10")); !errors.Is(err, ErrRangeChanged) {
		t.Fatalf("Has with a changed range = %v", err)
	}

	rep, err := r.Repair(ctx, []string{"10.96.0.10", "10.97.0.1"}, ReleaseUnused)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Replaced != "range 10.96.0.0/24" || !slices.Equal(rep.Added, []string{"10.96.0.10"}) ||
		!slices.Equal(rep.OutOfRange, []string{"10.97.0.1"}) {
		t.Fatalf("report %+v", rep)
	}
	if err := r.Allocate(ctx, netip.MustParseAddr("10.96.0.10")); !errors.Is(err, ErrIPAllocated) {
		t.Fatalf("Allocate after Repair = %v, want ErrIPAllocated", err)
	}
	if err := r.Allocate(ctx, netip.MustParseAddr("10.96.200.1")); err != nil {
		t.Fatalf("Allocate in the new range after Repair: %v", err)
	}
	// The server on the old range now refuses in turn.
	if err := old.Allocate(ctx, netip.MustParseAddr("10.96.0.12")); !errors.Is(err, ErrRangeChanged) {
		t.Fatalf("old range after Repair = %v", err)
	}
}

func TestUnreadableRecord(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	if _, err := s.Create(ctx, portKey, []byte(`{"range":"30000-32767","count":1,"encoding":"uvarint-deltas","offsets":"AAAA"}`)); err != nil {
		t.Fatal(err)
	}
	r := newPortRange(t, s, "30000-32767")
	if _, err := r.AllocateNext(ctx); err == nil {
		t.Fatal("AllocateNext on an unreadable record succeeded")
	}
	rep, err := r.Repair(ctx, []int{30001}, ReleaseUnused)
	if err != nil || rep.Replaced == "" || !slices.Equal(rep.Added, []string{"30001"}) {
		t.Fatalf("Repair = %+v, %v", rep, err)
	}
	if _, err := r.AllocateNext(ctx); err != nil {
		t.Fatalf("AllocateNext after Repair: %v", err)
	}
}

func sameReport(a, b RepairReport) bool {
	return slices.Equal(a.Added, b.Added) && slices.Equal(a.Released, b.Released) &&
		slices.Equal(a.OutOfRange, b.OutOfRange) && slices.Equal(a.Duplicates, b.Duplicates) &&
		slices.Equal(a.Kept, b.Kept) && a.Replaced == b.Replaced && a.Recorded == b.Recorded
}

// TestRepairKeepingUnused: on a store other servers allocate from, a value
// recorded but held by no object may be one another server is storing
// right now, so Repair keeps it (and still adds what is missing).
func TestRepairKeepingUnused(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	r := newIPRange(t, s, "10.96.0.0/24")
	for _, ip := range []string{"10.96.0.1", "10.96.0.20"} {
		if err := r.Allocate(ctx, netip.MustParseAddr(ip)); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := r.Repair(ctx, []string{"10.96.0.1", "10.96.0.40"}, KeepUnused)
	if err != nil {
		t.Fatal(err)
	}
	want := RepairReport{Added: []string{"10.96.0.40"}, Kept: []string{"10.96.0.20"}, Recorded: 3}
	if !sameReport(rep, want) {
		t.Fatalf("report %+v\nwant   %+v", rep, want)
	}
	for _, ip := range []string{"10.96.0.1", "10.96.0.20", "10.96.0.40"} {
		if has, err := r.Has(ctx, netip.MustParseAddr(ip)); err != nil || !has {
			t.Errorf("Has(%s) = %v, %v after Repair, want true", ip, has, err)
		}
	}
	if n := storedCount(t, s, ipKey); n != 3 {
		t.Fatalf("stored record holds %d values, want 3", n)
	}
	// Only kept values: nothing to write.
	before := s.Revision()
	if _, err := r.Repair(ctx, []string{"10.96.0.1"}, KeepUnused); err != nil || s.Revision() != before {
		t.Fatalf("a Repair that only kept values: %v, revision %d → %d", err, before, s.Revision())
	}
}
