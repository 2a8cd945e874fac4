package registry

// The steps of one Service write's allocations, recorded so that they can
// be undone (the write failed) or completed (the write succeeded).

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/validation/field"
	netutils "k8s.io/utils/net"

	"github.com/miniapi/miniapi/pkg/apiserver/allocator"
)

// serviceTxn is what one write took and what it gives back once stored.
// A dry run takes nothing: it checks requests as kube-apiserver's dry run
// does (a ClusterIP against the range, a NodePort against what is taken)
// and answers with free values it does not take.
type serviceTxn struct {
	a      *serviceAllocations
	dryRun bool

	takenIPs   []netip.Addr
	takenPorts []int
	// claimed are the NodePorts this write asked for, so a dry run sees
	// its own requests as taken too.
	claimed map[int]bool

	releaseIPs   []string
	releasePorts []int
}

func (a *serviceAllocations) begin(dryRun bool) *serviceTxn {
	return &serviceTxn{a: a, dryRun: dryRun, claimed: map[int]bool{}}
}

// finish gives back what the write took (it failed) or what it dropped
// (it succeeded). The write has happened by now, whether or not the
// client is still waiting, so a cancelled request does not stop this.
func (t *serviceTxn) finish(ctx context.Context, success bool) {
	if t.dryRun {
		return
	}
	ctx = context.WithoutCancel(ctx)
	ips, ports := t.takenIPs, t.takenPorts
	if success {
		ips, ports = nil, t.releasePorts
		for _, s := range t.releaseIPs {
			if ip := parseIP(s); ip.IsValid() {
				ips = append(ips, ip)
			}
		}
	}
	for _, ip := range ips {
		if err := t.a.ips.Release(ctx, ip); err != nil {
			t.a.log.Warn("releasing a ClusterIP; a restart frees it", "ip", ip, "err", err)
		}
	}
	for _, p := range ports {
		if err := t.a.ports.Release(ctx, p); err != nil {
			t.a.log.Warn("releasing a NodePort; a restart frees it", "port", p, "err", err)
		}
	}
}

// allocClusterIPs takes the requested ClusterIP or a free one, unless the
// Service has none (ExternalName, headless).
func (t *serviceTxn) allocClusterIPs(ctx context.Context, svc *corev1.Service) error {
	spec := &svc.Spec
	if !needsClusterIP(svc) || (len(spec.ClusterIPs) > 0 && spec.ClusterIPs[0] == corev1.ClusterIPNone) {
		return nil
	}
	if len(spec.ClusterIPs) == 0 {
		ip, err := t.nextIP(ctx)
		if err != nil {
			return apierrors.NewInternalError(fmt.Errorf(allocator.NextClusterIPErrorFormat, err))
		}
		spec.ClusterIP, spec.ClusterIPs = ip.String(), []string{ip.String()}
		return nil
	}
	requested := spec.ClusterIPs[0]
	err := t.takeIP(ctx, parseIP(requested))
	if errors.Is(err, allocator.ErrAllocated) || errors.Is(err, allocator.ErrNotInRange) {
		return invalidService(svc, field.Invalid(clusterIPsPath, spec.ClusterIPs, fmt.Sprintf(allocator.ClusterIPErrorFormat, requested, err)))
	}
	return err
}

func (t *serviceTxn) takeIP(ctx context.Context, ip netip.Addr) error {
	if t.dryRun {
		return t.a.ips.Validate(ip)
	}
	if err := t.a.ips.Allocate(ctx, ip); err != nil {
		return err
	}
	t.takenIPs = append(t.takenIPs, ip)
	return nil
}

func (t *serviceTxn) nextIP(ctx context.Context) (netip.Addr, error) {
	if t.dryRun {
		return t.freeIP(ctx)
	}
	ip, err := t.a.ips.AllocateNext(ctx)
	if err == nil {
		t.takenIPs = append(t.takenIPs, ip)
	}
	return ip, err
}

// initNodePorts gives every port of a new NodePort or LoadBalancer Service
// its requested nodePort or a free one. Ports with the same number (TCP
// and UDP) share one NodePort, as on kube-apiserver.
func (t *serviceTxn) initNodePorts(ctx context.Context, svc *corev1.Service) error {
	byPort := map[int32]int32{}
	for i := range svc.Spec.Ports {
		p := &svc.Spec.Ports[i]
		if p.NodePort == 0 && !allocatesNodePorts(svc) {
			continue // requested ones are still honoured
		}
		shared, ok := byPort[p.Port]
		switch {
		case !ok:
			np := requestedNodePort(p.Port, svc.Spec.Ports)
			if np == 0 {
				next, err := t.nextPort(ctx)
				if err != nil {
					return apierrors.NewInternalError(fmt.Errorf(allocator.NextNodePortErrorFormat, err))
				}
				np = int32(next)
			} else if err := t.takePort(ctx, int(np)); err != nil {
				return nodePortError(svc, i, np, err)
			}
			p.NodePort, byPort[p.Port] = np, np
		case p.NodePort == 0:
			p.NodePort = shared
		case p.NodePort != shared:
			if err := t.takePort(ctx, int(p.NodePort)); err != nil {
				return nodePortError(svc, i, p.NodePort, err)
			}
		}
	}
	return nil
}

// requestedNodePort is the nodePort a port of this number asks for, if any.
func requestedNodePort(port int32, ports []corev1.ServicePort) int32 {
	for _, p := range ports {
		if p.Port == port && p.NodePort != 0 {
			return p.NodePort
		}
	}
	return 0
}

// updateNodePorts takes the NodePorts the updated Service asks for that
// its old self did not hold, gives free ones to ports without, and notes
// the old ones no longer used.
func (t *serviceTxn) updateNodePorts(ctx context.Context, svc, old *corev1.Service) error {
	held := heldNodePorts(old)
	taken := map[int]bool{}
	for i := range svc.Spec.Ports {
		p := &svc.Spec.Ports[i]
		if p.NodePort == 0 && !allocatesNodePorts(svc) {
			continue
		}
		if p.NodePort == 0 {
			next, err := t.nextPort(ctx)
			if err != nil {
				return apierrors.NewInternalError(fmt.Errorf(allocator.NextNodePortErrorFormat, err))
			}
			p.NodePort = int32(next)
			continue
		}
		np := int(p.NodePort)
		if slices.Contains(held, np) || taken[np] {
			continue
		}
		if err := t.takePort(ctx, np); err != nil {
			return nodePortError(svc, i, p.NodePort, err)
		}
		taken[np] = true
	}
	now := heldNodePorts(svc)
	for _, np := range held {
		if !slices.Contains(now, np) {
			t.releasePorts = append(t.releasePorts, np)
		}
	}
	return nil
}

// allocHealthCheckNodePort takes the requested health check NodePort or
// a free one.
func (t *serviceTxn) allocHealthCheckNodePort(ctx context.Context, svc *corev1.Service) error {
	if np := svc.Spec.HealthCheckNodePort; np != 0 {
		if err := t.takePort(ctx, int(np)); err != nil {
			return apierrors.NewInternalError(fmt.Errorf("failed to allocate requested HealthCheck NodePort %v: %v", np, err))
		}
		return nil
	}
	np, err := t.nextPort(ctx)
	if err != nil {
		return apierrors.NewInternalError(fmt.Errorf("failed to allocate a HealthCheck NodePort %v: %v", np, err))
	}
	svc.Spec.HealthCheckNodePort = int32(np)
	return nil
}

// updateHealthCheckNodePort takes one when the Service starts needing it
// and gives the old one back when it stops.
func (t *serviceTxn) updateHealthCheckNodePort(ctx context.Context, svc, old *corev1.Service) error {
	switch needed, needs := needsHealthCheck(old), needsHealthCheck(svc); {
	case !needed && needs:
		return t.allocHealthCheckNodePort(ctx, svc)
	case needed && !needs:
		t.releasePorts = append(t.releasePorts, heldHealthCheckNodePort(old)...)
	}
	return nil
}

func (t *serviceTxn) takePort(ctx context.Context, port int) error {
	if t.claimed[port] {
		return allocator.ErrPortAllocated
	}
	if t.dryRun {
		taken, err := t.a.ports.Has(ctx, port)
		if err != nil {
			return err
		}
		if taken {
			return allocator.ErrPortAllocated
		}
	} else {
		if err := t.a.ports.Allocate(ctx, port); err != nil {
			return err
		}
		t.takenPorts = append(t.takenPorts, port)
	}
	t.claimed[port] = true
	return nil
}

func (t *serviceTxn) nextPort(ctx context.Context) (int, error) {
	if t.dryRun {
		p, err := t.freePort(ctx)
		t.claimed[p] = err == nil
		return p, err
	}
	p, err := t.a.ports.AllocateNext(ctx)
	if err == nil {
		t.takenPorts = append(t.takenPorts, p)
		t.claimed[p] = true
	}
	return p, err
}

// nodePortError is kube-apiserver's 422 for a requested NodePort that is
// taken or out of range; other errors (the store's) pass as they are.
func nodePortError(svc *corev1.Service, i int, np int32, err error) error {
	if errors.Is(err, allocator.ErrAllocated) || errors.Is(err, allocator.ErrNotInRange) {
		return invalidService(svc, field.Invalid(portsPath.Index(i).Child("nodePort"), np, err.Error()))
	}
	return err
}

func invalidService(svc *corev1.Service, errs ...*field.Error) error {
	return apierrors.NewInvalid(corev1.SchemeGroupVersion.WithKind("Service").GroupKind(), svc.Name, errs)
}

// dryRunProbes bounds the search for a free value in a dry run.
const dryRunProbes = 64

// freeIP is a free address of the range, not taken: what a dry run
// answers with. A full range answers as AllocateNext would.
func (t *serviceTxn) freeIP(ctx context.Context) (netip.Addr, error) {
	first, size := t.a.ips.First(), t.a.ips.Size()
	for range dryRunProbes {
		ip := addToAddr(first, rand.IntN(size))
		taken, err := t.a.ips.Has(ctx, ip)
		if err != nil || !taken {
			return ip, err
		}
	}
	return netip.Addr{}, allocator.ErrFull
}

// freePort is freeIP for NodePorts.
func (t *serviceTxn) freePort(ctx context.Context) (int, error) {
	for range dryRunProbes {
		p := t.a.portRange.Base + rand.IntN(t.a.portRange.Size)
		taken, err := t.a.ports.Has(ctx, p)
		if err != nil || (!taken && !t.claimed[p]) {
			return p, err
		}
	}
	return 0, allocator.ErrFull
}

// addToAddr is the address n after a.
func addToAddr(a netip.Addr, n int) netip.Addr {
	b := a.As16()
	carry := uint(n)
	for i := len(b) - 1; i >= 0 && carry > 0; i-- {
		sum := uint(b[i]) + carry
		b[i], carry = byte(sum), sum>>8
	}
	if a.Is4() {
		return netip.AddrFrom4([4]byte(b[12:]))
	}
	return netip.AddrFrom16(b)
}

// parseIP reads an address as kube-apiserver does (leading zeros allowed
// in IPv4); the zero Addr when it is none.
func parseIP(s string) netip.Addr {
	ip := netutils.ParseIPSloppy(s)
	if ip == nil {
		return netip.Addr{}
	}
	a, _ := netip.AddrFromSlice(ip)
	return a.Unmap()
}

// familyOf is the IP family of an address.
func familyOf(ip string) corev1.IPFamily {
	if isIPv6(ip) {
		return corev1.IPv6Protocol
	}
	return corev1.IPv4Protocol
}
