package job

// spec.podFailurePolicy and spec.successPolicy, as kube's job controller
// applies them.
//
// A failed pod is matched against the failure policy's rules in order;
// the first rule that matches decides: FailJob fails the Job at once
// (FailureTarget, then Failed, reason PodFailurePolicy), Ignore leaves
// the failure out of status.failed and so out of backoffLimit, Count
// counts it as usual, FailIndex fails the pod's index for good (with
// backoffLimitPerIndex). A pod that matches no rule is counted.
//
// The success policy (Indexed Jobs only) ends the Job as succeeded once
// one of its rules holds: the listed succeededIndexes all succeeded, or
// succeededCount of them (or of all indexes) did.

import (
	"fmt"
	"slices"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

// failureMatch is what the failure policy says about one failed pod.
type failureMatch struct {
	// action is the matching rule's action; "" when no rule matched.
	action batchv1.PodFailurePolicyAction
	// message is the Job's failure message, for a FailJob rule.
	message string
}

// counts reports whether the failure counts against the backoff limits.
func (m failureMatch) counts() bool { return m.action != batchv1.PodFailurePolicyActionIgnore }

// matchFailurePolicy finds the first rule of job's podFailurePolicy that
// pod's failure matches.
func matchFailurePolicy(job *batchv1.Job, pod *corev1.Pod) failureMatch {
	policy := job.Spec.PodFailurePolicy
	if policy == nil {
		return failureMatch{}
	}
	for i, rule := range policy.Rules {
		var message string
		switch {
		case rule.OnExitCodes != nil:
			cs := matchExitCodes(&pod.Status, rule.OnExitCodes)
			if cs == nil {
				continue
			}
			message = fmt.Sprintf("Container %s for pod %s/%s failed with exit code %v matching %v rule at index %d",
				cs.Name, pod.Namespace, pod.Name, cs.State.Terminated.ExitCode, rule.Action, i)
		case len(rule.OnPodConditions) > 0:
			cond := matchPodConditions(&pod.Status, rule.OnPodConditions)
			if cond == nil {
				continue
			}
			message = fmt.Sprintf("Pod %s/%s has condition %v matching %v rule at index %d",
				pod.Namespace, pod.Name, cond.Type, rule.Action, i)
		default:
			continue
		}
		switch rule.Action {
		case batchv1.PodFailurePolicyActionFailJob:
			return failureMatch{action: rule.Action, message: message}
		default: // Ignore, Count, FailIndex
			return failureMatch{action: rule.Action}
		}
	}
	return failureMatch{}
}

// matchExitCodes returns the first terminated container (regular, then
// init) with a non-zero exit code the requirement matches.
func matchExitCodes(st *corev1.PodStatus, req *batchv1.PodFailurePolicyOnExitCodesRequirement) *corev1.ContainerStatus {
	for _, list := range [][]corev1.ContainerStatus{st.ContainerStatuses, st.InitContainerStatuses} {
		for i := range list {
			cs := &list[i]
			term := cs.State.Terminated
			if term == nil || term.ExitCode == 0 || (req.ContainerName != nil && *req.ContainerName != cs.Name) {
				continue
			}
			in := slices.Contains(req.Values, term.ExitCode)
			if (req.Operator == batchv1.PodFailurePolicyOnExitCodesOpIn && in) || (req.Operator == batchv1.PodFailurePolicyOnExitCodesOpNotIn && !in) {
				return cs
			}
		}
	}
	return nil
}

// matchPodConditions returns the pod's first condition that one of the
// patterns names with the same status.
func matchPodConditions(st *corev1.PodStatus, patterns []batchv1.PodFailurePolicyOnPodConditionsPattern) *corev1.PodCondition {
	for i := range st.Conditions {
		for _, p := range patterns {
			if st.Conditions[i].Type == p.Type && st.Conditions[i].Status == p.Status {
				return &st.Conditions[i]
			}
		}
	}
	return nil
}

// failJobMessage is the failure message of the first failed pod that
// matches a FailJob rule, or "".
func failJobMessage(job *batchv1.Job, pods []*corev1.Pod) string {
	if job.Spec.PodFailurePolicy == nil {
		return ""
	}
	for _, p := range pods {
		if !isFailed(p) {
			continue
		}
		if m := matchFailurePolicy(job, p); m.action == batchv1.PodFailurePolicyActionFailJob {
			return m.message
		}
	}
	return ""
}

// matchSuccessPolicy returns kube's message for the first success policy
// rule that the succeeded indexes satisfy, and whether one does.
func matchSuccessPolicy(job *batchv1.Job, succeeded intervals) (string, bool) {
	policy := job.Spec.SuccessPolicy
	if policy == nil || len(succeeded) == 0 {
		return "", false
	}
	for i, rule := range policy.Rules {
		met := false
		if rule.SucceededIndexes != nil {
			required := parseIntervals(*rule.SucceededIndexes, completions(job))
			if len(required) == 0 {
				continue
			}
			have := required.overlap(succeeded)
			met = have == required.total() || (rule.SucceededCount != nil && have >= int(*rule.SucceededCount))
		} else if rule.SucceededCount != nil {
			met = succeeded.total() >= int(*rule.SucceededCount)
		}
		if met {
			return fmt.Sprintf("Matched rules at index %d", i), true
		}
	}
	return "", false
}
