package statefulset

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// claimName is "<template>-<set>-<ordinal>", kube's name for the claim
// of ordinal made from template tmpl.
func claimName(s *appsv1.StatefulSet, tmpl *corev1.PersistentVolumeClaim, ordinal int) string {
	return tmpl.Name + "-" + s.Name + "-" + strconv.Itoa(ordinal)
}

// claimsOf builds the claims of the pod with ordinal, in template order:
// each a copy of its template, renamed, in the set's namespace, with the
// selector's match labels over the template's.
func claimsOf(s *appsv1.StatefulSet, ordinal int) []*corev1.PersistentVolumeClaim {
	var out []*corev1.PersistentVolumeClaim
	for i := range s.Spec.VolumeClaimTemplates {
		tmpl := &s.Spec.VolumeClaimTemplates[i]
		claim := tmpl.DeepCopy()
		claim.Name = claimName(s, tmpl, ordinal)
		claim.Namespace = s.Namespace
		var match map[string]string
		if s.Spec.Selector != nil {
			match = s.Spec.Selector.MatchLabels
		}
		if claim.Labels == nil && match != nil {
			claim.Labels = map[string]string{}
		}
		for k, v := range match {
			claim.Labels[k] = v
		}
		out = append(out, claim)
	}
	return out
}

// createClaims creates the missing claims of pod, with the owner
// references the retention policy asks for. A claim being deleted is an
// error: the pod must wait for it to go, or it would mount a claim about
// to disappear.
func (c *Controller) createClaims(ctx context.Context, s *appsv1.StatefulSet, pod *corev1.Pod, ordinal int) error {
	var errs []error
	for _, claim := range claimsOf(s, ordinal) {
		existing, err := c.claimLister.PersistentVolumeClaims(claim.Namespace).Get(claim.Name)
		switch {
		case err == nil && existing.DeletionTimestamp != nil:
			errs = append(errs, fmt.Errorf("pvc %s is being deleted", claim.Name))
		case err == nil:
		case !apierrors.IsNotFound(err):
			errs = append(errs, fmt.Errorf("failed to retrieve PVC %s: %w", claim.Name, err))
		default:
			setRetentionRefs(claim, s, pod)
			_, err := c.client.CoreV1().PersistentVolumeClaims(claim.Namespace).Create(ctx, claim, metav1.CreateOptions{})
			switch {
			case err == nil:
				c.recorder.Eventf(s, corev1.EventTypeNormal, "SuccessfulCreate", "Create Claim %s Pod %s in StatefulSet %s success", claim.Name, pod.Name, s.Name)
			case apierrors.IsAlreadyExists(err): // our cache is behind our own write
			default:
				c.recorder.Eventf(s, corev1.EventTypeWarning, "FailedCreate", "Create Claim %s for Pod %s in StatefulSet %s failed error: %v", claim.Name, pod.Name, s.Name, err)
				errs = append(errs, fmt.Errorf("failed to create PVC %s: %w", claim.Name, err))
			}
		}
	}
	return errors.Join(errs...)
}

// claimIsStale: under whenScaled=Delete, a claim of pod that still names
// an earlier pod of that name as owner is about to be collected, so the
// pod must not be created on it yet.
func (c *Controller) claimIsStale(s *appsv1.StatefulSet, pod *corev1.Pod, ordinal int) (bool, error) {
	if retentionOf(s).WhenScaled == appsv1.RetainPersistentVolumeClaimRetentionPolicyType {
		return false, nil
	}
	for _, claim := range claimsOf(s, ordinal) {
		existing, err := c.claimLister.PersistentVolumeClaims(claim.Namespace).Get(claim.Name)
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			return false, err
		}
		if hasStaleRef(existing, pod, podKind) {
			return true, nil
		}
	}
	return false, nil
}

// fixClaimRetention brings the owner references of pod's claims in line
// with the set's retention policy (a claim not made yet is left alone).
func (c *Controller) fixClaimRetention(ctx context.Context, s *appsv1.StatefulSet, pod *corev1.Pod, ordinal int) error {
	for _, want := range claimsOf(s, ordinal) {
		claim, err := c.claimLister.PersistentVolumeClaims(want.Namespace).Get(want.Name)
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			return err
		}
		if claimRefsUpToDate(claim, s, pod) {
			continue
		}
		claim = claim.DeepCopy()
		setRetentionRefs(claim, s, pod)
		if _, err := c.client.CoreV1().PersistentVolumeClaims(claim.Namespace).Update(ctx, claim, metav1.UpdateOptions{}); err != nil {
			return fmt.Errorf("could not update claim %s for delete policy ownerRefs: %w", claim.Name, err)
		}
	}
	return nil
}
