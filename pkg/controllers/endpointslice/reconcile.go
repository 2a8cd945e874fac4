package endpointslice

import (
	"context"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/client-go/tools/cache"

	"github.com/miniapi/miniapi/pkg/controllers/internal/pass"
	"github.com/miniapi/miniapi/pkg/controllers/internal/servicepods"
)

// Reconcile makes the EndpointSlices of the Service named by key
// ("namespace/name") list the pods it selects.
//
// It is level-based: it reads the latest Service, pods, nodes and slices
// from the caches, computes every endpoint the Service should publish, and
// writes only the slices whose content differs (see planner). If the slice
// cache does not yet show this controller's own last writes it does
// nothing: the write's event brings the Service back. A Service that is
// gone needs nothing (the garbage collector removes its slices, which it
// controls). Running it again finds nothing to do; an error makes the
// driver call it again with backoff.
func (c *Controller) Reconcile(ctx context.Context, key string) error {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil // a malformed key can never succeed
	}
	svc, err := c.services.Services(ns).Get(name)
	if apierrors.IsNotFound(err) {
		c.triggers.Forget(key)
		c.written.forget(key)
		return nil
	}
	if err != nil {
		return err
	}
	if !servicepods.Managed(svc) {
		return nil
	}
	pods, err := servicepods.Selected(c.pods, svc)
	if err != nil {
		return err
	}
	existing, err := c.slices.EndpointSlices(ns).List(labels.SelectorFromSet(labels.Set{
		discoveryv1.LabelServiceName: name, discoveryv1.LabelManagedBy: ControllerName,
	}))
	if err != nil {
		return err
	}
	existing = slices.DeleteFunc(existing, func(s *discoveryv1.EndpointSlice) bool { return s.DeletionTimestamp != nil })
	if c.written.stale(key, existing) {
		c.log.Debug("slice cache behind this controller's writes; waiting for it", "service", key)
		return nil
	}
	trigger := c.triggers.Compute(svc, pods)

	var errs []error
	var writes plan
	wanted := addressTypes(svc)
	for _, addrType := range wanted {
		groups, skipped := c.desiredGroups(svc, pods, addrType)
		errs = append(errs, skipped...)
		p := planner{svc: svc, addrType: addrType, labels: desiredLabels(svc), max: c.max}
		mine := slices.DeleteFunc(slices.Clone(existing), func(s *discoveryv1.EndpointSlice) bool { return s.AddressType != addrType })
		got := p.plan(mine, groups)
		writes.create = append(writes.create, got.create...)
		writes.update = append(writes.update, got.update...)
		writes.remove = append(writes.remove, got.remove...)
	}
	for _, s := range existing {
		if !slices.Contains(wanted, s.AddressType) {
			writes.remove = append(writes.remove, s)
		}
	}
	errs = append(errs, c.apply(ctx, key, svc, writes, trigger, len(pods))...)
	if len(errs) > 0 {
		err := utilerrors.NewAggregate(errs)
		c.recorder.Eventf(svc, corev1.EventTypeWarning, "FailedToUpdateEndpointSlices",
			"Error updating Endpoint Slices for Service %s/%s: %v", svc.Namespace, svc.Name, err)
		return err
	}
	return nil
}

// apply sends the planned writes, each slice written with the trigger
// time, and remembers them until the cache shows them.
func (c *Controller) apply(ctx context.Context, key string, svc *corev1.Service, w plan, trigger time.Time, pods int) []error {
	if len(w.create)+len(w.update)+len(w.remove) == 0 {
		return nil
	}
	pass.Log(ctx, c.log, "Service", svc, "reconciled endpointslices", "service", key, "selected", pods,
		"action", fmt.Sprintf("create %d, update %d, delete %d slices", len(w.create), len(w.update), len(w.remove)))
	api := c.client.DiscoveryV1().EndpointSlices(svc.Namespace)
	var errs []error
	for _, s := range w.create {
		setTriggerTime(s, trigger)
		got, err := api.Create(ctx, s, metav1.CreateOptions{})
		if err != nil {
			if apierrors.IsForbidden(err) {
				continue // the namespace is terminating
			}
			errs = append(errs, fmt.Errorf("failed to create EndpointSlice for Service %s: %w", key, err))
			continue
		}
		c.written.wrote(key, got, false)
	}
	for _, s := range w.update {
		setTriggerTime(s, trigger)
		got, err := api.Update(ctx, s, metav1.UpdateOptions{})
		if err != nil {
			errs = append(errs, fmt.Errorf("failed to update %s EndpointSlice for Service %s: %w", s.Name, key, err))
			continue
		}
		c.written.wrote(key, got, false)
	}
	for _, s := range w.remove {
		err := api.Delete(ctx, s.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &s.UID}})
		if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
			errs = append(errs, fmt.Errorf("failed to delete %s EndpointSlice for Service %s: %w", s.Name, key, err))
			continue
		}
		c.written.wrote(key, s, true)
	}
	return errs
}

// setTriggerTime records why the slice is written now, or drops a stale
// reason.
func setTriggerTime(s *discoveryv1.EndpointSlice, trigger time.Time) {
	if trigger.IsZero() {
		delete(s.Annotations, corev1.EndpointsLastChangeTriggerTime)
		return
	}
	if s.Annotations == nil {
		s.Annotations = map[string]string{}
	}
	s.Annotations[corev1.EndpointsLastChangeTriggerTime] = trigger.UTC().Format(time.RFC3339Nano)
}
