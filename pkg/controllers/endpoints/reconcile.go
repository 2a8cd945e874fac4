//lint:file-ignore SA1019 v1 Endpoints is deprecated in kube 1.33+; serving and publishing it is what this file is for

package endpoints

import (
	"context"
	"fmt"
	"maps"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/miniapi/miniapi/pkg/controllers/internal/pass"
	"github.com/miniapi/miniapi/pkg/controllers/internal/servicepods"
)

// Reconcile makes the Endpoints named by key ("namespace/name") list the
// pods its Service selects.
//
// It is level-based: it reads the latest Service, pods and Endpoints from
// the caches, computes the whole Endpoints the Service should have, and
// writes only if that differs from what is stored (create, update, or a
// delete of an Endpoints whose Service is gone). Running it again finds
// nothing to do; an error makes the driver call it again with backoff.
func (c *Controller) Reconcile(ctx context.Context, key string) error {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil // a malformed key can never succeed
	}
	svc, err := c.services.Services(ns).Get(name)
	if apierrors.IsNotFound(err) {
		c.triggers.Forget(key)
		return c.deleteLeftover(ctx, ns, name)
	}
	if err != nil {
		return err
	}
	if !servicepods.Managed(svc) {
		return nil // its endpoints, if any, are the user's
	}
	pods, err := servicepods.Selected(c.pods, svc)
	if err != nil {
		return err
	}
	// Computed on every pass, so the tracker sees every change even when
	// nothing is written.
	trigger := c.triggers.Compute(svc, pods)
	subsets := desiredSubsets(svc, pods)
	over := truncate(subsets)
	labels := desiredLabels(svc)

	current, err := c.endpoints.Endpoints(ns).Get(name)
	switch {
	case apierrors.IsNotFound(err):
		current = nil
	case err != nil:
		return err
	}
	if current != nil && upToDate(current, subsets, labels, over) {
		return nil
	}
	ep := &corev1.Endpoints{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}}
	if current != nil {
		ep = current.DeepCopy()
	}
	ep.Labels, ep.Subsets = labels, subsets
	setAnnotations(ep, trigger, over)
	return c.write(ctx, ep, current == nil, svc, len(pods))
}

// upToDate reports whether the stored Endpoints already lists subsets with
// labels, and is marked over capacity exactly when over. The trigger time
// alone never causes a write.
func upToDate(ep *corev1.Endpoints, subsets []corev1.EndpointSubset, labels map[string]string, over bool) bool {
	_, marked := ep.Annotations[OverCapacity]
	// Compared in canonical form: the same content stored in another
	// order (a user's write) is no change.
	return apiequality.Semantic.DeepEqual(Repack(ep.Subsets), subsets) &&
		apiequality.Semantic.DeepEqual(ep.Labels, labels) && marked == over
}

// desiredLabels are the Service's labels, the headless mark for a Service
// without a cluster IP, and the managed-by label.
func desiredLabels(svc *corev1.Service) map[string]string {
	labels := maps.Clone(svc.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	delete(labels, corev1.IsHeadlessService)
	if servicepods.Headless(svc) {
		labels[corev1.IsHeadlessService] = ""
	}
	labels[ManagedByLabel] = Name
	return labels
}

// setAnnotations records the trigger time (or drops a stale one) and
// marks an Endpoints that was truncated.
func setAnnotations(ep *corev1.Endpoints, trigger time.Time, over bool) {
	if ep.Annotations == nil {
		ep.Annotations = map[string]string{}
	}
	if trigger.IsZero() {
		delete(ep.Annotations, corev1.EndpointsLastChangeTriggerTime)
	} else {
		ep.Annotations[corev1.EndpointsLastChangeTriggerTime] = trigger.UTC().Format(time.RFC3339Nano)
	}
	if over {
		ep.Annotations[OverCapacity] = truncatedMarker
	} else {
		delete(ep.Annotations, OverCapacity)
	}
	if len(ep.Annotations) == 0 {
		ep.Annotations = nil
	}
}

// write creates or updates ep; a failure is also an event, as kube's.
func (c *Controller) write(ctx context.Context, ep *corev1.Endpoints, create bool, svc *corev1.Service, pods int) error {
	ready, notReady := 0, 0
	for _, ss := range ep.Subsets {
		ready += len(ss.Addresses)
		notReady += len(ss.NotReadyAddresses)
	}
	action := "update"
	var err error
	if create {
		action = "create"
		_, err = c.client.CoreV1().Endpoints(ep.Namespace).Create(ctx, ep, metav1.CreateOptions{})
	} else {
		_, err = c.client.CoreV1().Endpoints(ep.Namespace).Update(ctx, ep, metav1.UpdateOptions{})
	}
	pass.Log(ctx, c.log, "Service", ep, "reconciled endpoints", "service", ep.Namespace+"/"+ep.Name, "selected", pods,
		"desired", fmt.Sprintf("%d ready, %d not ready", ready, notReady), "action", action, "err", err)
	switch {
	case err == nil:
		return nil
	case create && apierrors.IsAlreadyExists(err):
		return nil // the cache is behind; its add event brings us back
	case create && apierrors.IsForbidden(err):
		return nil // the namespace is terminating
	}
	if create {
		c.recorder.Eventf(ep, corev1.EventTypeWarning, "FailedToCreateEndpoint",
			"Failed to create endpoint for service %v/%v: %v", svc.Namespace, svc.Name, err)
	} else {
		c.recorder.Eventf(ep, corev1.EventTypeWarning, "FailedToUpdateEndpoint",
			"Failed to update endpoint %v/%v: %v", svc.Namespace, svc.Name, err)
	}
	return err
}

// deleteLeftover deletes the Endpoints of a Service that is gone, if this
// controller made it (one a user made for no Service stays).
func (c *Controller) deleteLeftover(ctx context.Context, ns, name string) error {
	ep, err := c.endpoints.Endpoints(ns).Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil || ep.Labels[ManagedByLabel] != Name {
		return err
	}
	pass.Log(ctx, c.log, "Service", ep, "reconciled endpoints", "service", ns+"/"+name, "desired", "none (service gone)", "action", "delete")
	err = c.client.CoreV1().Endpoints(ns).Delete(ctx, name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &ep.UID}})
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		return nil
	}
	return err
}
