package registry

// A Service's ClusterIPs and NodePorts, allocated from the server's
// ranges (package allocator) around the store write, as kube-apiserver's
// Service storage does: taken before the Service is stored, given back
// when the write fails, and what an old Service held given back only after
// the write that drops it.

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	utilnet "k8s.io/apimachinery/pkg/util/net"

	"github.com/miniapi/miniapi/pkg/apiserver/allocator"
)

// Store keys of the two ranges. Object keys start with /<group>/, so
// these never collide with one.
const (
	serviceIPsKey       = "/ranges/serviceips"
	serviceNodePortsKey = "/ranges/servicenodeports"
)

// serviceAllocations are the Service kind's WriteHooks.
type serviceAllocations struct {
	ips       *allocator.IPRange
	ports     *allocator.PortRange
	portRange utilnet.PortRange
	family    corev1.IPFamily // the family of the ClusterIP range
	log       *slog.Logger
	unused    allocator.Unused // what the start-up repair does with values no Service holds
	// unusable is set when there is no store: every allocation fails
	// with it rather than a Service going without its addresses.
	unusable error
}

func newServiceAllocations(opts Options) (*serviceAllocations, error) {
	pr, err := utilnet.ParsePortRange(opts.ServiceNodePortRange)
	if err != nil {
		return nil, fmt.Errorf("--service-node-port-range %q: %v", opts.ServiceNodePortRange, err)
	}
	svc, err := kubernetesService(opts.ServiceClusterIPRange)
	if err != nil {
		return nil, err
	}
	a := &serviceAllocations{portRange: *pr, family: familyOf(svc.Spec.ClusterIP), log: opts.Logger, unused: allocator.ReleaseUnused}
	if opts.SharedStore {
		a.unused = allocator.KeepUnused
	}
	if a.log == nil {
		a.log = slog.Default()
	}
	if opts.Store == nil {
		a.unusable = errors.New("services: no store to allocate ClusterIPs and NodePorts from")
		return a, nil
	}
	if a.ips, err = allocator.NewIPRange(opts.Store, serviceIPsKey, opts.ServiceClusterIPRange); err != nil {
		return nil, err
	}
	if a.ports, err = allocator.NewPortRange(opts.Store, serviceNodePortsKey, opts.ServiceNodePortRange); err != nil {
		return nil, err
	}
	return a, nil
}

// BeginCreate fills the IP family fields and takes the ClusterIP, the
// NodePorts and the health check NodePort the new Service needs.
func (a *serviceAllocations) BeginCreate(ctx context.Context, obj runtime.Object, dryRun bool) (FinishFunc, error) {
	if a.unusable != nil {
		return nil, apierrors.NewInternalError(a.unusable)
	}
	svc := obj.(*corev1.Service)
	normalizeClusterIPs(svc, nil)
	if err := a.initIPFamilyFields(svc, nil); err != nil {
		return nil, err
	}
	t := a.begin(dryRun)
	err := t.allocClusterIPs(ctx, svc)
	if err == nil && needsNodePorts(svc) {
		err = t.initNodePorts(ctx, svc)
	}
	if err == nil && needsHealthCheck(svc) {
		err = t.allocHealthCheckNodePort(ctx, svc)
	}
	if err != nil {
		t.finish(ctx, false)
		return nil, err
	}
	return t.finish, nil
}

// BeginUpdate takes what the new Service needs and its old self did not
// hold, and notes what the old one held and the new one drops.
func (a *serviceAllocations) BeginUpdate(ctx context.Context, obj, old runtime.Object, dryRun bool) (FinishFunc, error) {
	if a.unusable != nil {
		return nil, apierrors.NewInternalError(a.unusable)
	}
	svc, o := obj.(*corev1.Service), old.(*corev1.Service)
	patchAllocatedValues(svc, o)
	normalizeClusterIPs(svc, o)
	if err := a.initIPFamilyFields(svc, o); err != nil {
		return nil, err
	}
	t := a.begin(dryRun)
	var err error
	switch {
	case needsClusterIP(o) && !needsClusterIP(svc):
		t.releaseIPs = append(t.releaseIPs, heldClusterIPs(o)...)
	case !needsClusterIP(o) && needsClusterIP(svc):
		err = t.allocClusterIPs(ctx, svc)
	}
	if needsNodePorts(o) && !needsNodePorts(svc) {
		t.releasePorts = append(t.releasePorts, heldNodePorts(o)...)
	}
	if err == nil && needsNodePorts(svc) {
		err = t.updateNodePorts(ctx, svc, o)
	}
	if err == nil {
		err = t.updateHealthCheckNodePort(ctx, svc, o)
	}
	if err != nil {
		t.finish(ctx, false)
		return nil, err
	}
	return t.finish, nil
}

// AfterDelete gives back everything the deleted Service held.
func (a *serviceAllocations) AfterDelete(ctx context.Context, obj runtime.Object) {
	if a.unusable != nil {
		return
	}
	svc := obj.(*corev1.Service)
	t := a.begin(false)
	t.releaseIPs = heldClusterIPs(svc)
	t.releasePorts = append(heldNodePorts(svc), heldHealthCheckNodePort(svc)...)
	t.finish(ctx, true)
}

var _ Repairer = (*serviceAllocations)(nil)

// Repair makes the ranges hold exactly what the stored Services hold.
func (a *serviceAllocations) Repair(ctx context.Context, stored []runtime.Object) error {
	if a.unusable != nil {
		return a.unusable
	}
	var ips []string
	var ports []int
	for _, obj := range stored {
		svc := obj.(*corev1.Service)
		ips = append(ips, heldClusterIPs(svc)...)
		ports = append(ports, heldNodePorts(svc)...)
		ports = append(ports, heldHealthCheckNodePort(svc)...)
	}
	ipReport, err := a.ips.Repair(ctx, ips, a.unused)
	if err != nil {
		return fmt.Errorf("repairing the ClusterIP range: %w", err)
	}
	a.logRepair("ClusterIPs", ipReport)
	portReport, err := a.ports.Repair(ctx, ports, a.unused)
	if err != nil {
		return fmt.Errorf("repairing the NodePort range: %w", err)
	}
	a.logRepair("NodePorts", portReport)
	return nil
}

// logRepair says what a repair changed; a clean start logs nothing.
func (a *serviceAllocations) logRepair(what string, r allocator.RepairReport) {
	if len(r.Kept) > 0 {
		a.log.Info("kept Service "+what+" that no stored Service holds: another server may be storing them", "kept", r.Kept)
	}
	if len(r.Added)+len(r.Released)+len(r.OutOfRange)+len(r.Duplicates) == 0 && r.Replaced == "" {
		return
	}
	a.log.Warn("repaired the Service "+what+" range from the stored Services", "recorded", r.Recorded,
		"added", r.Added, "released", r.Released, "outOfRange", r.OutOfRange, "duplicates", r.Duplicates, "replacedRange", r.Replaced)
}

// heldClusterIPs are the addresses a stored Service holds in the range.
func heldClusterIPs(svc *corev1.Service) []string {
	if !needsClusterIP(svc) {
		return nil
	}
	var out []string
	for _, ip := range svc.Spec.ClusterIPs {
		if ip != "" && ip != corev1.ClusterIPNone {
			out = append(out, ip)
		}
	}
	return out
}

// heldNodePorts are the NodePorts a stored Service holds: only the types
// that use them allocate them (an ExternalName Service may carry a
// nodePort that it never held, as on kube-apiserver).
func heldNodePorts(svc *corev1.Service) []int {
	if !needsNodePorts(svc) {
		return nil
	}
	var out []int
	for _, p := range svc.Spec.Ports {
		if p.NodePort != 0 {
			out = append(out, int(p.NodePort))
		}
	}
	return out
}

func heldHealthCheckNodePort(svc *corev1.Service) []int {
	if !needsHealthCheck(svc) || svc.Spec.HealthCheckNodePort == 0 {
		return nil
	}
	return []int{int(svc.Spec.HealthCheckNodePort)}
}
