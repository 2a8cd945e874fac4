package allocator

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"testing"
)

func TestNewIPRangeRefuses(t *testing.T) {
	s := newStore(t)
	for _, cidr := range []string{"", "10.96.0.0", "nonsense/8", "10.0.0.0/11", "10.0.0.0/31", "10.0.0.1/32",
		"fd00::/107", "fd00::/128"} {
		if _, err := NewIPRange(s, ipKey, cidr); err == nil {
			t.Errorf("NewIPRange(%q) accepted it", cidr)
		}
	}
	if _, err := NewIPRange(nil, ipKey, "10.96.0.0/12"); err == nil {
		t.Error("NewIPRange without a store accepted it")
	}
	if _, err := NewIPRange(s, "", "10.96.0.0/12"); err == nil {
		t.Error("NewIPRange without a key accepted it")
	}
}

func TestIPRangeShape(t *testing.T) {
	s := newStore(t)
	cases := []struct {
		cidr, prefix, first string
		size                int
	}{
		{"10.96.0.0/12", "10.96.0.0/12", "10.96.0.1", 1<<20 - 2},
		{"10.96.0.7/24", "10.96.0.0/24", "10.96.0.1", 254},
		{"10.0.0.0/30", "10.0.0.0/30", "10.0.0.1", 2},
		{"fd00::/108", "fd00::/108", "fd00::1", 1<<20 - 1},
		{"fd00::/127", "fd00::/127", "fd00::1", 1},
	}
	for _, c := range cases {
		r := newIPRange(t, s, c.cidr)
		if r.Prefix().String() != c.prefix || r.First().String() != c.first || r.Size() != c.size {
			t.Errorf("%s: prefix %s first %s size %d, want %s %s %d",
				c.cidr, r.Prefix(), r.First(), r.Size(), c.prefix, c.first, c.size)
		}
	}
}

func TestIPRangeAllocateReleaseHas(t *testing.T) {
	ctx := context.Background()
	r := newIPRange(t, newStore(t), "10.96.0.0/12")
	ip := netip.MustParseAddr("10.96.12.34")
	if has, err := r.Has(ctx, ip); err != nil || has {
		t.Fatalf("Has before Allocate = %v, %v", has, err)
	}
	if err := r.Allocate(ctx, ip); err != nil {
		t.Fatal(err)
	}
	if has, err := r.Has(ctx, ip); err != nil || !has {
		t.Fatalf("Has after Allocate = %v, %v", has, err)
	}
	// kube-apiserver reads an IPv4-mapped IPv6 address as the IPv4 one.
	if err := r.Allocate(ctx, netip.MustParseAddr("::ffff:10.96.12.34")); !errors.Is(err, ErrIPAllocated) {
		t.Fatalf("Allocate of the mapped form = %v, want ErrIPAllocated", err)
	}
	if err := r.Release(ctx, ip); err != nil {
		t.Fatal(err)
	}
	if has, err := r.Has(ctx, ip); err != nil || has {
		t.Fatalf("Has after Release = %v, %v", has, err)
	}
	if err := r.Allocate(ctx, ip); err != nil {
		t.Fatalf("Allocate after Release: %v", err)
	}
	if err := r.Release(ctx, netip.MustParseAddr("192.168.0.1")); err != nil {
		t.Fatalf("Release outside the range: %v", err)
	}
}

// TestIPRangeMessages pins kube-apiserver's words, as the 1.37 reference
// records them.
func TestIPRangeMessages(t *testing.T) {
	ctx := context.Background()
	r := newIPRange(t, newStore(t), "10.96.0.0/24")
	err := r.Allocate(ctx, netip.MustParseAddr("10.96.5.5"))
	if !errors.Is(err, ErrNotInRange) {
		t.Fatalf("Allocate outside = %v, want ErrNotInRange", err)
	}
	want := "failed to allocate IP 10.96.5.5: the provided IP (10.96.5.5) is not in the valid range. " +
		"The range of valid IPs is 10.96.0.0/24"
	if got := fmt.Sprintf(ClusterIPErrorFormat, "10.96.5.5", err); got != want {
		t.Fatalf("message\n got %q\nwant %q", got, want)
	}
	if err := r.Validate(netip.MustParseAddr("10.96.5.5")); err == nil || err.Error() != want[len("failed to allocate IP 10.96.5.5: "):] {
		t.Fatalf("Validate = %v", err)
	}
	for _, edge := range []string{"10.96.0.0", "10.96.0.255"} {
		if err := r.Allocate(ctx, netip.MustParseAddr(edge)); !errors.Is(err, ErrNotInRange) {
			t.Errorf("Allocate(%s) = %v, want ErrNotInRange", edge, err)
		}
	}
	if err := r.Allocate(ctx, netip.MustParseAddr("10.96.0.10")); err != nil {
		t.Fatal(err)
	}
	err = r.Allocate(ctx, netip.MustParseAddr("10.96.0.10"))
	if !errors.Is(err, ErrAllocated) || !errors.Is(err, ErrIPAllocated) || err.Error() != "provided IP is already allocated" {
		t.Fatalf("second Allocate = %v", err)
	}
}

func TestIPRangeExhaustion(t *testing.T) {
	ctx := context.Background()
	r := newIPRange(t, newStore(t), "10.0.0.0/29")
	seen := map[netip.Addr]bool{}
	for range 6 {
		ip, err := r.AllocateNext(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if seen[ip] || r.Validate(ip) != nil {
			t.Fatalf("AllocateNext gave %s (seen before: %v)", ip, seen[ip])
		}
		seen[ip] = true
	}
	for _, edge := range []string{"10.0.0.0", "10.0.0.7"} {
		if seen[netip.MustParseAddr(edge)] {
			t.Fatalf("AllocateNext handed out %s", edge)
		}
	}
	_, err := r.AllocateNext(ctx)
	if !errors.Is(err, ErrFull) {
		t.Fatalf("AllocateNext on a full range = %v, want ErrFull", err)
	}
	if got := fmt.Sprintf(NextClusterIPErrorFormat, err); got != "failed to allocate a serviceIP: range is full" {
		t.Fatalf("full message = %q", got)
	}
	if err := r.Release(ctx, netip.MustParseAddr("10.0.0.3")); err != nil {
		t.Fatal(err)
	}
	if ip, err := r.AllocateNext(ctx); err != nil || ip.String() != "10.0.0.3" {
		t.Fatalf("AllocateNext after a release = %s, %v; want 10.0.0.3", ip, err)
	}
}

func TestIPv6RangeUsesLastAddress(t *testing.T) {
	ctx := context.Background()
	r := newIPRange(t, newStore(t), "fd00::/125")
	got := map[string]bool{}
	for range 7 {
		ip, err := r.AllocateNext(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got[ip.String()] = true
	}
	if !got["fd00::1"] || !got["fd00::7"] || got["fd00::"] || len(got) != 7 {
		t.Fatalf("allocated %v; want fd00::1 to fd00::7", got)
	}
	if _, err := r.AllocateNext(ctx); !errors.Is(err, ErrFull) {
		t.Fatalf("8th AllocateNext = %v, want ErrFull", err)
	}
	if err := r.Allocate(ctx, netip.MustParseAddr("10.0.0.1")); !errors.Is(err, ErrNotInRange) {
		t.Fatalf("IPv4 address in an IPv6 range = %v", err)
	}
}

// TestAllocateNextLeavesLowBand: as in kube-apiserver, random allocation
// keeps off the first addresses (among them First, the kubernetes
// Service's) until the rest of the range is full.
func TestAllocateNextLeavesLowBand(t *testing.T) {
	ctx := context.Background()
	r := newIPRange(t, newStore(t), "10.0.0.0/26") // 62 usable, band 16: .1 to .16
	bandEnd := netip.MustParseAddr("10.0.0.16")
	for range 62 - 16 {
		ip, err := r.AllocateNext(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !bandEnd.Less(ip) {
			t.Fatalf("AllocateNext gave %s from the low band while the rest had room", ip)
		}
	}
	ip, err := r.AllocateNext(ctx)
	if err != nil || bandEnd.Less(ip) {
		t.Fatalf("AllocateNext with only the band free = %s, %v", ip, err)
	}
}

func TestCanceledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := newIPRange(t, newStore(t), "10.96.0.0/12")
	if _, err := r.AllocateNext(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("AllocateNext with a canceled context = %v", err)
	}
}
