package registry

// pods/eviction: a delete that respects PodDisruptionBudgets, as
// kube-apiserver's eviction subresource does. A pod that is already not
// running (terminal, pending, or being deleted) goes at once; otherwise
// the one budget that selects it must allow a disruption, which the
// eviction spends (disruptionsAllowed minus one, the pod noted in
// disruptedPods) before the pod is deleted. The budget's numbers come
// from its status, which the disruption controller keeps.

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

var (
	podsGVR = schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	pdbsGVR = policyv1.SchemeGroupVersion.WithResource("poddisruptionbudgets")
)

// maxDisruptedPods is kube's bound on status.disruptedPods: past it the
// controller has fallen behind and evictions are refused.
const maxDisruptedPods = 2000

// maxEvictionAttempts bounds the retries after a write conflict (kube
// retries 20 times).
const maxEvictionAttempts = 20

// evictionSubresource is pods/eviction.
func evictionSubresource() *Subresource {
	return &Subresource{
		Kind:   policyv1.SchemeGroupVersion.WithKind("Eviction"),
		Verbs:  []string{"create"},
		Action: &Action{New: func() runtime.Object { return &policyv1.Eviction{} }, Do: evict},
	}
}

// evict answers one Eviction.
func evict(ctx context.Context, objs Objects, req ActionRequest) (runtime.Object, error) {
	ev := req.Body.(*policyv1.Eviction)
	if ev.Name != req.Name {
		return nil, apierrors.NewBadRequest("name in URL does not match name in Eviction object")
	}
	if ev.Namespace != "" && ev.Namespace != req.Namespace {
		return nil, apierrors.NewBadRequest("the namespace of the provided object does not match the namespace sent on the request")
	}
	opts, err := evictionDeleteOptions(ev, req.DryRun)
	if err != nil {
		return nil, err
	}
	pod, deleted, err := deleteIfPDBIgnorable(ctx, objs, req, opts)
	if err != nil || deleted {
		return evictionSucceeded(err)
	}
	pdbs, err := matchingPDBs(ctx, objs, pod)
	if err != nil {
		return nil, err
	}
	if len(pdbs) > 1 {
		return &metav1.Status{
			Status:  metav1.StatusFailure,
			Message: "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.",
			Code:    500,
		}, nil
	}
	enforceRV := false
	if len(pdbs) == 1 {
		if enforceRV = unhealthyMayGo(pod, pdbs[0]); !enforceRV {
			if err := spendDisruption(ctx, objs, pdbs[0], pod.Name, len(opts.DryRun) > 0); err != nil {
				return nil, err
			}
		}
	}
	del := opts
	if enforceRV {
		del = withRVPrecondition(opts, pod.ResourceVersion)
	}
	err = objs.Delete(ctx, podsGVR, pod.Namespace, pod.Name, del)
	if apierrors.IsConflict(err) && enforceRV && rvUnset(opts) {
		return nil, stillProcessing(pdbs[0].Name)
	}
	return evictionSucceeded(err)
}

// evictionSucceeded is kube's answer to an eviction that deleted its pod.
func evictionSucceeded(err error) (runtime.Object, error) {
	if err != nil {
		return nil, err
	}
	return &metav1.Status{Status: metav1.StatusSuccess}, nil
}

// evictionDeleteOptions are the Eviction's DeleteOptions with the
// request's dryRun carried in; the two may not disagree.
func evictionDeleteOptions(ev *policyv1.Eviction, dryRun bool) (*metav1.DeleteOptions, error) {
	var requested []string
	if dryRun {
		requested = []string{metav1.DryRunAll}
	}
	if ev.DeleteOptions == nil {
		return &metav1.DeleteOptions{DryRun: requested}, nil
	}
	opts := ev.DeleteOptions.DeepCopy()
	switch {
	case len(opts.DryRun) == 0:
		opts.DryRun = requested
	case len(requested) > 0 && !reflect.DeepEqual(requested, opts.DryRun):
		return nil, apierrors.NewBadRequest(fmt.Sprintf("Non-matching dry-run options in request and content: %v and %v", requested, opts.DryRun))
	}
	return opts, nil
}

// deleteIfPDBIgnorable reads the pod and, when it is no longer running
// (a terminal or pending pod, or one being deleted), deletes it without
// looking at budgets: it is already disrupted. A running pod is returned
// for the budget checks.
func deleteIfPDBIgnorable(ctx context.Context, objs Objects, req ActionRequest, opts *metav1.DeleteOptions) (*corev1.Pod, bool, error) {
	for attempt := 1; ; attempt++ {
		obj, err := objs.Get(ctx, podsGVR, req.Namespace, req.Name)
		if err != nil {
			return nil, false, err
		}
		pod := obj.(*corev1.Pod)
		if !canIgnorePDB(pod) {
			return pod, false, nil
		}
		del := opts
		if enforcesRV(pod) && rvUnset(opts) {
			// Do not race a pod that turns running (and counts) meanwhile.
			del = withRVPrecondition(opts, pod.ResourceVersion)
		}
		err = objs.Delete(ctx, podsGVR, req.Namespace, req.Name, del)
		if apierrors.IsConflict(err) && rvUnset(opts) && attempt < maxEvictionAttempts {
			continue
		}
		return pod, err == nil, err
	}
}

func canIgnorePDB(pod *corev1.Pod) bool {
	switch pod.Status.Phase {
	case corev1.PodSucceeded, corev1.PodFailed, corev1.PodPending:
		return true
	}
	return pod.DeletionTimestamp != nil
}

// enforcesRV: a pod that may still become ready is deleted only at the
// version the decision was made on.
func enforcesRV(pod *corev1.Pod) bool {
	terminal := pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed
	return !terminal && pod.DeletionTimestamp == nil
}

func rvUnset(opts *metav1.DeleteOptions) bool {
	return opts.Preconditions == nil || opts.Preconditions.ResourceVersion == nil
}

func withRVPrecondition(opts *metav1.DeleteOptions, rv string) *metav1.DeleteOptions {
	out := opts.DeepCopy()
	if out.Preconditions == nil {
		out.Preconditions = &metav1.Preconditions{}
	}
	out.Preconditions.ResourceVersion = &rv
	return out
}

// matchingPDBs are the budgets of the pod's namespace whose selector
// selects it; an empty or invalid selector selects nothing.
func matchingPDBs(ctx context.Context, objs Objects, pod *corev1.Pod) ([]*policyv1.PodDisruptionBudget, error) {
	all, err := objs.List(ctx, pdbsGVR, pod.Namespace)
	if err != nil {
		return nil, err
	}
	var out []*policyv1.PodDisruptionBudget
	for _, obj := range all {
		pdb := obj.(*policyv1.PodDisruptionBudget)
		sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
		if err != nil || sel.Empty() || !sel.Matches(labels.Set(pod.Labels)) {
			continue
		}
		out = append(out, pdb)
	}
	return out, nil
}

// unhealthyMayGo: a pod that is not ready does not count as healthy, so
// evicting it spends nothing when the budget's policy always allows it,
// or when the budget is met without it.
func unhealthyMayGo(pod *corev1.Pod, pdb *policyv1.PodDisruptionBudget) bool {
	if podReady(pod) {
		return false
	}
	if p := pdb.Spec.UnhealthyPodEvictionPolicy; p != nil && *p == policyv1.AlwaysAllow {
		return true
	}
	return pdb.Status.CurrentHealthy >= pdb.Status.DesiredHealthy && pdb.Status.DesiredHealthy > 0
}

func podReady(pod *corev1.Pod) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// spendDisruption takes one allowed disruption from the budget, reading
// it again after a conflicting write.
func spendDisruption(ctx context.Context, objs Objects, pdb *policyv1.PodDisruptionBudget, podName string, dryRun bool) error {
	for attempt := 1; ; attempt++ {
		err := checkAndDecrement(ctx, objs, pdb, podName, dryRun)
		if !apierrors.IsConflict(err) {
			return err
		}
		if attempt >= maxEvictionAttempts {
			return apierrors.NewTimeoutError(fmt.Sprintf("couldn't update PodDisruptionBudget %q due to conflicts", pdb.Name), 10)
		}
		obj, err := objs.Get(ctx, pdbsGVR, pdb.Namespace, pdb.Name)
		if err != nil {
			return err
		}
		pdb = obj.(*policyv1.PodDisruptionBudget)
	}
}

// checkAndDecrement refuses an eviction the budget does not allow, in
// kube's words, and otherwise records it in the budget's status.
func checkAndDecrement(ctx context.Context, objs Objects, pdb *policyv1.PodDisruptionBudget, podName string, dryRun bool) error {
	st := &pdb.Status
	switch {
	case st.ObservedGeneration < pdb.Generation:
		return stillProcessing(pdb.Name)
	case st.DisruptionsAllowed < 0:
		return apierrors.NewForbidden(policyv1.Resource("poddisruptionbudget"), pdb.Name, errors.New("pdb disruptions allowed is negative"))
	case len(st.DisruptedPods) > maxDisruptedPods:
		return apierrors.NewForbidden(policyv1.Resource("poddisruptionbudget"), pdb.Name, errors.New("DisruptedPods map too big - too many evictions not confirmed by PDB controller"))
	case st.DisruptionsAllowed == 0:
		err := apierrors.NewTooManyRequests("Cannot evict pod as it would violate the pod's disruption budget.", 0)
		err.ErrStatus.Details.Causes = append(err.ErrStatus.Details.Causes, metav1.StatusCause{
			Type:    policyv1.DisruptionBudgetCause,
			Message: fmt.Sprintf("The disruption budget %s needs %d healthy pods and has %d currently", pdb.Name, st.DesiredHealthy, st.CurrentHealthy),
		})
		return err
	}
	pdb = pdb.DeepCopy()
	st = &pdb.Status
	st.DisruptionsAllowed--
	if st.DisruptionsAllowed == 0 {
		setDisruptionAllowedCondition(pdb, time.Now())
	}
	if dryRun {
		return nil
	}
	if st.DisruptedPods == nil {
		st.DisruptedPods = map[string]metav1.Time{}
	}
	// The controller must not count the pod as healthy while its delete
	// is on the way.
	st.DisruptedPods[podName] = metav1.NewTime(time.Now().Truncate(time.Second))
	_, err := objs.Update(ctx, pdbsGVR, "status", pdb, false)
	return err
}

// stillProcessing is kube's 429 for a budget whose status is older than
// its spec.
func stillProcessing(name string) error {
	err := apierrors.NewTooManyRequests("Cannot evict pod as it would violate the pod's disruption budget.", 10)
	err.ErrStatus.Details.Causes = append(err.ErrStatus.Details.Causes, metav1.StatusCause{
		Type:    policyv1.DisruptionBudgetCause,
		Message: fmt.Sprintf("The disruption budget %s is still being processed by the server.", name),
	})
	return err
}

// setDisruptionAllowedCondition sets the DisruptionAllowed condition from
// status.disruptionsAllowed, as kube's disruption controller and eviction
// both do; now is the transition time when the condition changes.
func setDisruptionAllowedCondition(pdb *policyv1.PodDisruptionBudget, now time.Time) {
	c := metav1.Condition{
		Type: policyv1.DisruptionAllowedCondition, Status: metav1.ConditionFalse, Reason: policyv1.InsufficientPodsReason,
		ObservedGeneration: pdb.Status.ObservedGeneration, LastTransitionTime: metav1.NewTime(now.Truncate(time.Second)),
	}
	if pdb.Status.DisruptionsAllowed > 0 {
		c.Status, c.Reason = metav1.ConditionTrue, policyv1.SufficientPodsReason
	}
	if pdb.Status.Conditions == nil {
		pdb.Status.Conditions = []metav1.Condition{}
	}
	apimeta.SetStatusCondition(&pdb.Status.Conditions, c)
}
