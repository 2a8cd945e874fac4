package disruption

import (
	"context"
	"time"

	policyv1 "k8s.io/api/policy/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// computeStatus is the budget's status for the counts. A budget that
// expects no pods allows no disruption, so that pods appearing before the
// next sync are safe.
func computeStatus(pdb *policyv1.PodDisruptionBudget, healthy, desired, expected int32, disrupted map[string]metav1.Time, now time.Time) policyv1.PodDisruptionBudgetStatus {
	allowed := healthy - desired
	if expected <= 0 || allowed <= 0 {
		allowed = 0
	}
	st := policyv1.PodDisruptionBudgetStatus{
		ObservedGeneration: pdb.Generation,
		DisruptedPods:      disrupted,
		DisruptionsAllowed: allowed,
		CurrentHealthy:     healthy,
		DesiredHealthy:     desired,
		ExpectedPods:       expected,
		Conditions:         append([]metav1.Condition(nil), pdb.Status.Conditions...),
	}
	cond := metav1.Condition{Type: policyv1.DisruptionAllowedCondition, Status: metav1.ConditionFalse,
		Reason: policyv1.InsufficientPodsReason, ObservedGeneration: pdb.Generation}
	if allowed > 0 {
		cond.Status, cond.Reason = metav1.ConditionTrue, policyv1.SufficientPodsReason
	}
	setCondition(&st, cond, now)
	return st
}

// failSafe is the status of a budget whose counts could not be worked
// out: nothing may be disrupted, and the condition says why.
func failSafe(pdb *policyv1.PodDisruptionBudget, err error, now time.Time) policyv1.PodDisruptionBudgetStatus {
	st := *pdb.Status.DeepCopy()
	st.DisruptionsAllowed = 0
	setCondition(&st, metav1.Condition{Type: policyv1.DisruptionAllowedCondition, Status: metav1.ConditionFalse,
		Reason: policyv1.SyncFailedReason, Message: err.Error(), ObservedGeneration: st.ObservedGeneration}, now)
	return st
}

// setCondition sets cond, stamping now as its transition time only when
// its status changes.
func setCondition(st *policyv1.PodDisruptionBudgetStatus, cond metav1.Condition, now time.Time) {
	if st.Conditions == nil {
		st.Conditions = []metav1.Condition{}
	}
	cond.LastTransitionTime = metav1.NewTime(now.Truncate(time.Second))
	apimeta.SetStatusCondition(&st.Conditions, cond)
}

// writeStatus writes status unless the budget already has it.
func (c *Controller) writeStatus(ctx context.Context, pdb *policyv1.PodDisruptionBudget, status policyv1.PodDisruptionBudgetStatus) error {
	if len(status.DisruptedPods) == 0 && len(pdb.Status.DisruptedPods) == 0 {
		status.DisruptedPods = pdb.Status.DisruptedPods
	}
	if apiequality.Semantic.DeepEqual(pdb.Status, status) {
		return nil
	}
	next := pdb.DeepCopy()
	next.Status = status
	_, err := c.client.PolicyV1().PodDisruptionBudgets(pdb.Namespace).UpdateStatus(ctx, next, metav1.UpdateOptions{})
	return err
}
