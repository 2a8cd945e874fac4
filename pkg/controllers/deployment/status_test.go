package deployment

import (
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"
)

func TestSetConditionKeepsTransitionTime(t *testing.T) {
	t0, t1 := metav1.Unix(100, 0), metav1.Unix(200, 0)
	st := appsv1.DeploymentStatus{}
	setCondition(&st, appsv1.DeploymentCondition{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue, Reason: "A", LastTransitionTime: t0, LastUpdateTime: t0})
	setCondition(&st, appsv1.DeploymentCondition{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue, Reason: "A", LastTransitionTime: t1, LastUpdateTime: t1})
	if c := getCondition(st, appsv1.DeploymentProgressing); !c.LastUpdateTime.Equal(&t0) {
		t.Errorf("same status and reason changed the condition: %+v", c)
	}
	setCondition(&st, appsv1.DeploymentCondition{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue, Reason: "B", LastTransitionTime: t1, LastUpdateTime: t1})
	c := getCondition(st, appsv1.DeploymentProgressing)
	if c.Reason != "B" || !c.LastTransitionTime.Equal(&t0) || !c.LastUpdateTime.Equal(&t1) {
		t.Errorf("new reason, same status: %+v, want reason B, transition t0, update t1", c)
	}
	if len(st.Conditions) != 1 {
		t.Errorf("%d conditions, want 1", len(st.Conditions))
	}
}

func newTestController(clk *clocktesting.FakeClock) *Controller {
	return &Controller{clock: clk}
}

func TestRolloutStatusConditions(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Unix(1000, 0))
	c := newTestController(clk)
	d := rollingDeployment(3, "25%", "25%")
	d.Generation = 2
	deadline := int32(600)
	d.Spec.ProgressDeadlineSeconds = &deadline
	newRS := rs("web-abc", 3, 3)

	st := c.rolloutStatus(d, []*appsv1.ReplicaSet{newRS}, newRS)
	av, pr := getCondition(st, appsv1.DeploymentAvailable), getCondition(st, appsv1.DeploymentProgressing)
	if av == nil || av.Status != corev1.ConditionTrue || av.Reason != "MinimumReplicasAvailable" || av.Message != "Deployment has minimum availability." {
		t.Errorf("Available = %+v", av)
	}
	if pr == nil || pr.Reason != "NewReplicaSetAvailable" || pr.Message != `ReplicaSet "web-abc" has successfully progressed.` {
		t.Errorf("Progressing = %+v", pr)
	}
	if st.ObservedGeneration != 2 || st.Replicas != 3 || st.UpdatedReplicas != 3 || st.AvailableReplicas != 3 || st.UnavailableReplicas != 0 {
		t.Errorf("status counts = %+v", st)
	}

	// A rollout that stops moving: progressing at first, timed out once
	// progressDeadlineSeconds pass without change.
	old, stuck := rs("web-old", 3, 3), rs("web-new", 1, 0)
	d.Status = appsv1.DeploymentStatus{}
	st = c.rolloutStatus(d, []*appsv1.ReplicaSet{old, stuck}, stuck)
	if pr := getCondition(st, appsv1.DeploymentProgressing); pr == nil || pr.Reason != "ReplicaSetUpdated" || pr.Message != `ReplicaSet "web-new" is progressing.` {
		t.Fatalf("Progressing = %+v, want ReplicaSetUpdated", pr)
	}
	d.Status = st
	clk.Step(601 * time.Second)
	st = c.rolloutStatus(d, []*appsv1.ReplicaSet{old, stuck}, stuck)
	pr = getCondition(st, appsv1.DeploymentProgressing)
	if pr == nil || pr.Status != corev1.ConditionFalse || pr.Reason != "ProgressDeadlineExceeded" || pr.Message != `ReplicaSet "web-new" has timed out progressing.` {
		t.Errorf("after the deadline Progressing = %+v, want False/ProgressDeadlineExceeded", pr)
	}

	// Too few available: Available False.
	d.Status = appsv1.DeploymentStatus{}
	st = c.computeStatus(d, []*appsv1.ReplicaSet{rs("web-x", 3, 1)}, nil)
	if av := getCondition(st, appsv1.DeploymentAvailable); av.Status != corev1.ConditionFalse || av.Reason != "MinimumReplicasUnavailable" {
		t.Errorf("Available with 1 of 3 = %+v", av)
	}
	if st.UnavailableReplicas != 2 {
		t.Errorf("unavailableReplicas = %d, want 2", st.UnavailableReplicas)
	}
}
