package allocator

import (
	"context"
	"encoding/binary"
	"fmt"
	"net/netip"

	"github.com/miniapi/miniapi/pkg/storage"
)

// maxHostBits caps an IP range at 2^20 addresses: a /12 for IPv4 (the
// largest --service-cluster-ip-range kube-apiserver has accepted), a /108
// for IPv6. The allocated set is held as a bitmap of that many bits.
const maxHostBits = 20

// IPRange allocates ClusterIPs from a CIDR. The usable addresses are all
// but the network address, and for IPv4 all but the broadcast address too
// (IPv6 has none), as in kube-apiserver.
type IPRange struct {
	prefix netip.Prefix
	first  netip.Addr
	l      *ledger
}

// NewIPRange returns the range of cidr (such as "10.96.0.0/12") whose state
// lives in store under key (such as "/ranges/serviceips"). It reads
// nothing: a record made for another range is reported by the first
// operation, and Repair replaces it.
func NewIPRange(store storage.Store, key, cidr string) (*IPRange, error) {
	p, err := netip.ParsePrefix(cidr)
	if err != nil {
		return nil, fmt.Errorf("allocator: invalid service IP range %q: %v", cidr, err)
	}
	p = p.Masked()
	hostBits := p.Addr().BitLen() - p.Bits()
	if hostBits > maxHostBits {
		return nil, fmt.Errorf("allocator: service IP range %s is too large: at most 2^%d addresses "+
			"(a /%d for IPv4, a /%d for IPv6)", p, maxHostBits, 32-maxHostBits, 128-maxHostBits)
	}
	size := 1<<hostBits - 1 // not the network address
	if p.Addr().Is4() {
		size-- // nor the broadcast address
	}
	if size < 1 {
		return nil, fmt.Errorf("allocator: service IP range %s has no usable address", p)
	}
	l, err := newLedger(store, key, p.String(), size, ipBand(1<<hostBits))
	if err != nil {
		return nil, err
	}
	return &IPRange{prefix: p, first: p.Addr().Next(), l: l}, nil
}

// ipBand is how many addresses at the start of a CIDR of cidrSize
// addresses AllocateNext leaves for requested ones until the rest is full:
// kube-apiserver's min(max(16, size/16), 256), none for 16 or fewer.
func ipBand(cidrSize int) int {
	if cidrSize <= 16 {
		return 0
	}
	return min(max(16, cidrSize/16), 256)
}

// Prefix is the range's CIDR, masked ("10.96.0.0/12").
func (r *IPRange) Prefix() netip.Prefix { return r.prefix }

// First is the first usable address (10.96.0.1 in 10.96.0.0/12): the
// ClusterIP of the default/kubernetes Service. AllocateNext hands it out
// only when every address outside the low band is taken.
func (r *IPRange) First() netip.Addr { return r.first }

// Size is the number of usable addresses.
func (r *IPRange) Size() int { return r.l.size }

// Validate reports whether ip may be allocated from this range at all,
// without reading the store: nil, or a *NotInRangeError with kube's text.
// A dry run checks a requested ClusterIP with it.
func (r *IPRange) Validate(ip netip.Addr) error {
	if r.offset(ip) < 0 {
		return notInRangeIP(ip.String(), r.prefix.String())
	}
	return nil
}

// Allocate takes ip: ErrIPAllocated if it is taken, a *NotInRangeError
// if it is not in the range.
func (r *IPRange) Allocate(ctx context.Context, ip netip.Addr) error {
	i := r.offset(ip)
	if i < 0 {
		return notInRangeIP(ip.String(), r.prefix.String())
	}
	return r.l.allocate(ctx, i, ErrIPAllocated)
}

// AllocateNext takes a free address at random, or answers ErrFull.
func (r *IPRange) AllocateNext(ctx context.Context) (netip.Addr, error) {
	i, err := r.l.allocateNext(ctx)
	if err != nil {
		return netip.Addr{}, err
	}
	return r.addr(i), nil
}

// Release frees ip. Freeing a free address, or one outside the range, does
// nothing, as in kube-apiserver: a Service deleted after the range flag
// changed has nothing here to give back.
func (r *IPRange) Release(ctx context.Context, ip netip.Addr) error {
	i := r.offset(ip)
	if i < 0 {
		return nil
	}
	return r.l.release(ctx, i)
}

// Has reports whether ip is allocated; an address outside the range never is.
func (r *IPRange) Has(ctx context.Context, ip netip.Addr) (bool, error) {
	i := r.offset(ip)
	if i < 0 {
		return false, nil
	}
	return r.l.has(ctx, i)
}

// Repair makes the allocated set exactly the ClusterIPs in inUse (as the
// stored Services hold them; "None" and "" must be left out by the
// caller), whatever the store held before, including a record made for
// another range. See the package documentation for when to call it.
func (r *IPRange) Repair(ctx context.Context, inUse []string, unused Unused) (RepairReport, error) {
	w := newWanted(r.l.size)
	for _, s := range inUse {
		i := -1
		if ip, err := netip.ParseAddr(s); err == nil {
			i = r.offset(ip)
		}
		w.add(i, s)
	}
	return r.l.repair(ctx, w, unused, func(i int) string { return r.addr(i).String() })
}

// offset is ip's index among the usable addresses, or -1. The range has at
// most 2^20 addresses, so the low 32 bits of an address in it tell it
// apart from the others.
func (r *IPRange) offset(ip netip.Addr) int {
	if r.prefix.Addr().Is4() {
		ip = ip.Unmap()
	}
	if !r.prefix.Contains(ip) {
		return -1
	}
	i := int64(low32(ip)) - int64(low32(r.first))
	if i < 0 || i >= int64(r.l.size) {
		return -1
	}
	return int(i)
}

// addr is the usable address at offset i.
func (r *IPRange) addr(i int) netip.Addr {
	b := r.first.As16()
	binary.BigEndian.PutUint32(b[12:], low32(r.first)+uint32(i))
	if r.first.Is4() {
		return netip.AddrFrom4([4]byte(b[12:]))
	}
	return netip.AddrFrom16(b)
}

func low32(a netip.Addr) uint32 {
	b := a.As16()
	return binary.BigEndian.Uint32(b[12:])
}
