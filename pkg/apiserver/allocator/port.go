package allocator

import (
	"context"
	"fmt"
	"strconv"

	utilnet "k8s.io/apimachinery/pkg/util/net"

	"github.com/miniapi/miniapi/pkg/storage"
)

// PortRange allocates NodePorts from a range of ports such as
// "30000-32767".
type PortRange struct {
	ports utilnet.PortRange
	l     *ledger
}

// NewPortRange returns the range of ports (written as kube-apiserver's
// --service-node-port-range takes it: "30000-32767", "30000+2767" or one
// port) whose state lives in store under key (such as
// "/ranges/servicenodeports"). It reads nothing.
func NewPortRange(store storage.Store, key, ports string) (*PortRange, error) {
	pr, err := utilnet.ParsePortRange(ports)
	if err != nil {
		return nil, fmt.Errorf("allocator: invalid node port range %q: %v", ports, err)
	}
	if pr.Size == 0 || pr.Base < 1 {
		return nil, fmt.Errorf("allocator: invalid node port range %q: no ports from 1 to 65535", ports)
	}
	l, err := newLedger(store, key, pr.String(), pr.Size, portBand(pr.Size))
	if err != nil {
		return nil, err
	}
	return &PortRange{ports: *pr, l: l}, nil
}

// portBand is how many ports at the start of a range of size ports
// AllocateNext leaves for requested ones until the rest is full:
// kube-apiserver's min(max(16, size/32), 128), none for 16 or fewer.
func portBand(size int) int {
	if size <= 16 {
		return 0
	}
	return min(max(16, size/32), 128)
}

// String is the range as kube-apiserver writes it: "30000-32767".
func (r *PortRange) String() string { return r.ports.String() }

// Size is the number of ports.
func (r *PortRange) Size() int { return r.l.size }

// Validate reports whether port may be allocated from this range at all,
// without reading the store: nil, or a *NotInRangeError with kube's text.
func (r *PortRange) Validate(port int) error {
	if !r.ports.Contains(port) {
		return notInRangePort(strconv.Itoa(port), r.ports.String())
	}
	return nil
}

// Allocate takes port: ErrPortAllocated if it is taken, a
// *NotInRangeError if it is not in the range.
func (r *PortRange) Allocate(ctx context.Context, port int) error {
	if err := r.Validate(port); err != nil {
		return err
	}
	return r.l.allocate(ctx, port-r.ports.Base, ErrPortAllocated)
}

// AllocateNext takes a free port at random, or answers ErrFull.
func (r *PortRange) AllocateNext(ctx context.Context) (int, error) {
	i, err := r.l.allocateNext(ctx)
	if err != nil {
		return 0, err
	}
	return r.ports.Base + i, nil
}

// Release frees port. Freeing a free port, or one outside the range, does
// nothing, as in kube-apiserver.
func (r *PortRange) Release(ctx context.Context, port int) error {
	if !r.ports.Contains(port) {
		return nil
	}
	return r.l.release(ctx, port-r.ports.Base)
}

// Has reports whether port is allocated; a port outside the range never is.
func (r *PortRange) Has(ctx context.Context, port int) (bool, error) {
	if !r.ports.Contains(port) {
		return false, nil
	}
	return r.l.has(ctx, port-r.ports.Base)
}

// Repair makes the allocated set exactly the ports in inUse (every
// nodePort and healthCheckNodePort of the stored Services), whatever the
// store held before, including a record made for another range. See the
// package documentation for when to call it.
func (r *PortRange) Repair(ctx context.Context, inUse []int, unused Unused) (RepairReport, error) {
	w := newWanted(r.l.size)
	for _, p := range inUse {
		i := -1
		if r.ports.Contains(p) {
			i = p - r.ports.Base
		}
		w.add(i, strconv.Itoa(p))
	}
	return r.l.repair(ctx, w, unused, func(i int) string { return strconv.Itoa(r.ports.Base + i) })
}
