package allocator

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

func TestNewPortRangeRefuses(t *testing.T) {
	s := newStore(t)
	for _, ports := range []string{"", "abc", "40000-30000", "30000-70000", "0-10", "-1-10"} {
		if _, err := NewPortRange(s, portKey, ports); err == nil {
			t.Errorf("NewPortRange(%q) accepted it", ports)
		}
	}
}

func TestPortRangeShape(t *testing.T) {
	s := newStore(t)
	for spec, want := range map[string]string{"30000-32767": "30000-32767", "30000+2767": "30000-32767", "31000": "31000-31000"} {
		r := newPortRange(t, s, spec)
		if r.String() != want {
			t.Errorf("NewPortRange(%q).String() = %q, want %q", spec, r.String(), want)
		}
	}
	if n := newPortRange(t, s, "30000-32767").Size(); n != 2768 {
		t.Errorf("Size = %d, want 2768", n)
	}
}

// TestPortRangeMessages pins kube-apiserver's words, as the 1.37 reference
// records them.
func TestPortRangeMessages(t *testing.T) {
	ctx := context.Background()
	r := newPortRange(t, newStore(t), "30000-32767")
	err := r.Allocate(ctx, 20000)
	if !errors.Is(err, ErrNotInRange) ||
		err.Error() != "provided port is not in the valid range. The range of valid ports is 30000-32767" {
		t.Fatalf("Allocate(20000) = %v", err)
	}
	var nir *NotInRangeError
	if !errors.As(err, &nir) || nir.Value != "20000" || nir.ValidRange != "30000-32767" {
		t.Fatalf("NotInRangeError = %+v", nir)
	}
	if err := r.Allocate(ctx, 30887); err != nil {
		t.Fatal(err)
	}
	err = r.Allocate(ctx, 30887)
	if !errors.Is(err, ErrAllocated) || !errors.Is(err, ErrPortAllocated) || err.Error() != "provided port is already allocated" {
		t.Fatalf("second Allocate(30887) = %v", err)
	}
	if r.Validate(32767) != nil || r.Validate(32768) == nil || r.Validate(29999) == nil {
		t.Fatal("Validate disagrees with the range's ends")
	}
}

func TestPortRangeAllocateReleaseHas(t *testing.T) {
	ctx := context.Background()
	r := newPortRange(t, newStore(t), "30000-32767")
	if err := r.Allocate(ctx, 30080); err != nil {
		t.Fatal(err)
	}
	if has, err := r.Has(ctx, 30080); err != nil || !has {
		t.Fatalf("Has after Allocate = %v, %v", has, err)
	}
	if err := r.Release(ctx, 30080); err != nil {
		t.Fatal(err)
	}
	if has, err := r.Has(ctx, 30080); err != nil || has {
		t.Fatalf("Has after Release = %v, %v", has, err)
	}
	if has, err := r.Has(ctx, 80); err != nil || has {
		t.Fatalf("Has outside the range = %v, %v", has, err)
	}
	if err := r.Release(ctx, 80); err != nil {
		t.Fatalf("Release outside the range: %v", err)
	}
}

func TestPortRangeExhaustion(t *testing.T) {
	ctx := context.Background()
	r := newPortRange(t, newStore(t), "30000-30004")
	seen := map[int]bool{}
	for range 5 {
		p, err := r.AllocateNext(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if seen[p] || p < 30000 || p > 30004 {
			t.Fatalf("AllocateNext gave %d (seen before: %v)", p, seen[p])
		}
		seen[p] = true
	}
	_, err := r.AllocateNext(ctx)
	if !errors.Is(err, ErrFull) {
		t.Fatalf("AllocateNext on a full range = %v, want ErrFull", err)
	}
	if got := fmt.Sprintf(NextNodePortErrorFormat, err); got != "failed to allocate a nodePort: range is full" {
		t.Fatalf("full message = %q", got)
	}
	if err := r.Allocate(ctx, 30002); !errors.Is(err, ErrPortAllocated) {
		t.Fatalf("Allocate on a full range = %v, want ErrPortAllocated", err)
	}
}

func TestPortAllocateNextLeavesLowBand(t *testing.T) {
	ctx := context.Background()
	r := newPortRange(t, newStore(t), "30000-30099") // band 16: 30000 to 30015
	for range 100 - 16 {
		p, err := r.AllocateNext(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if p < 30016 {
			t.Fatalf("AllocateNext gave %d from the low band while the rest had room", p)
		}
	}
	if p, err := r.AllocateNext(ctx); err != nil || p >= 30016 {
		t.Fatalf("AllocateNext with only the band free = %d, %v", p, err)
	}
}
