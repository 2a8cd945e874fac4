package allocator

import (
	"context"
	"errors"
	"net/netip"
	"path/filepath"
	"testing"
)

// TestStateSurvivesRestart: allocations made before the store is closed
// are still taken after it is opened again, by new allocators.
func TestStateSurvivesRestart(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "miniapi.db")
	s := openStore(t, path)
	ips := newIPRange(t, s, "10.0.0.0/29")
	ports := newPortRange(t, s, "30000-30004")
	var gotIPs []netip.Addr
	var gotPorts []int
	for range 3 {
		ip, err := ips.AllocateNext(ctx)
		if err != nil {
			t.Fatal(err)
		}
		p, err := ports.AllocateNext(ctx)
		if err != nil {
			t.Fatal(err)
		}
		gotIPs, gotPorts = append(gotIPs, ip), append(gotPorts, p)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s = openStore(t, path)
	ips = newIPRange(t, s, "10.0.0.0/29")
	ports = newPortRange(t, s, "30000-30004")
	for i := range gotIPs {
		if err := ips.Allocate(ctx, gotIPs[i]); !errors.Is(err, ErrIPAllocated) {
			t.Fatalf("Allocate(%s) after restart = %v, want ErrIPAllocated", gotIPs[i], err)
		}
		if has, err := ports.Has(ctx, gotPorts[i]); err != nil || !has {
			t.Fatalf("Has(%d) after restart = %v, %v", gotPorts[i], has, err)
		}
	}
	// Only the 3 addresses and 2 ports never handed out are left.
	for range 3 {
		ip, err := ips.AllocateNext(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, old := range gotIPs {
			if ip == old {
				t.Fatalf("AllocateNext after restart gave %s again", ip)
			}
		}
	}
	if _, err := ips.AllocateNext(ctx); !errors.Is(err, ErrFull) {
		t.Fatalf("AllocateNext on the full range = %v", err)
	}
	for range 2 {
		if _, err := ports.AllocateNext(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := ports.AllocateNext(ctx); !errors.Is(err, ErrFull) {
		t.Fatalf("AllocateNext on the full port range = %v", err)
	}
}
