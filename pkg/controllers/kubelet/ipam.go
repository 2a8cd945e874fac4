package kubelet

import (
	"encoding/binary"
	"fmt"
	"net/netip"
	"sync"

	"k8s.io/apimachinery/pkg/types"
)

// ipPool hands out pod IPs from each node's spec.podCIDR, one address per
// pod, never the same one to two live pods.
type ipPool struct {
	mu sync.Mutex
	// nodes holds a range per node name, filled lazily: the first allocation
	// on a node learns what its existing pods already use.
	nodes map[string]*nodeRange
}

// nodeRange is one node's pod CIDR and who holds which address in it.
type nodeRange struct {
	prefix netip.Prefix
	// byUID and byIP mirror each other: every held address in both.
	byUID map[types.UID]netip.Addr
	byIP  map[netip.Addr]types.UID
	// next is where the search for a free address starts; it walks forward
	// so that a freed address is reused only after a full round.
	next uint32
}

// heldIP is an address an existing pod already has.
type heldIP struct {
	uid types.UID
	ip  string
}

// allocate returns uid's address on node (the same one on every call until
// release), learning the node's held addresses from existing on first use.
func (p *ipPool) allocate(node, cidr string, uid types.UID, existing func() []heldIP) (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	r, ok := p.nodes[node]
	if !ok || r.prefix.String() != cidr {
		prefix, err := netip.ParsePrefix(cidr)
		if err != nil || !prefix.Addr().Is4() || prefix.Bits() > 30 {
			return "", fmt.Errorf("node %s has no usable IPv4 podCIDR (%q)", node, cidr)
		}
		r = &nodeRange{prefix: prefix.Masked(), byUID: map[types.UID]netip.Addr{}, byIP: map[netip.Addr]types.UID{}, next: 1}
		for _, h := range existing() {
			if a, err := netip.ParseAddr(h.ip); err == nil && r.prefix.Contains(a) {
				r.byUID[h.uid], r.byIP[a] = a, h.uid
			}
		}
		if p.nodes == nil {
			p.nodes = map[string]*nodeRange{}
		}
		p.nodes[node] = r
	}
	return r.allocate(uid)
}

func (r *nodeRange) allocate(uid types.UID) (string, error) {
	if a, ok := r.byUID[uid]; ok {
		return a.String(), nil
	}
	size := uint32(1) << (32 - r.prefix.Bits())
	base := binary.BigEndian.Uint32(r.prefix.Addr().AsSlice())
	// Skip the network (offset 0) and broadcast (size-1) addresses.
	for range size - 2 {
		off := r.next
		r.next++
		if r.next >= size-1 {
			r.next = 1
		}
		var b [4]byte
		binary.BigEndian.PutUint32(b[:], base+off)
		a := netip.AddrFrom4(b)
		if _, taken := r.byIP[a]; !taken {
			r.byUID[uid], r.byIP[a] = a, uid
			return a.String(), nil
		}
	}
	return "", fmt.Errorf("pod CIDR %s is full", r.prefix)
}

// release frees uid's address, wherever it is held.
func (p *ipPool) release(uid types.UID) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, r := range p.nodes {
		if a, ok := r.byUID[uid]; ok {
			delete(r.byUID, uid)
			delete(r.byIP, a)
		}
	}
}
