package job

import (
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// finished: the Job has its Complete or Failed condition.
func finished(job *batchv1.Job) bool { return finishedStatus(&job.Status) }

func finishedStatus(st *batchv1.JobStatus) bool {
	return hasCondition(st, batchv1.JobComplete) || hasCondition(st, batchv1.JobFailed)
}

// hasCondition: the condition of type t is True.
func hasCondition(st *batchv1.JobStatus, t batchv1.JobConditionType) bool {
	return condition(st, t).Status == corev1.ConditionTrue
}

func condition(st *batchv1.JobStatus, t batchv1.JobConditionType) batchv1.JobCondition {
	for _, c := range st.Conditions {
		if c.Type == t {
			return c
		}
	}
	return batchv1.JobCondition{}
}

// setCondition sets the condition of type t, appending it if new (kube's
// order is the order the conditions arose in); the probe time moves on
// every change, the transition time when the status changes.
func setCondition(st *batchv1.JobStatus, t batchv1.JobConditionType, status corev1.ConditionStatus, reason, message string, now time.Time) {
	at := metav1.NewTime(now)
	for i := range st.Conditions {
		c := &st.Conditions[i]
		if c.Type != t {
			continue
		}
		if c.Status != status {
			c.LastTransitionTime = at
		}
		c.Status, c.Reason, c.Message, c.LastProbeTime = status, reason, message, at
		return
	}
	st.Conditions = append(st.Conditions, batchv1.JobCondition{
		Type: t, Status: status, Reason: reason, Message: message, LastProbeTime: at, LastTransitionTime: at,
	})
}
