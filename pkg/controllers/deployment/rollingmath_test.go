package deployment

import (
	"fmt"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
)

func rollingDeployment(n int32, surge, unavailable string) *appsv1.Deployment {
	s, u := intstr.Parse(surge), intstr.Parse(unavailable)
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: appsv1.DeploymentSpec{
			Replicas: &n,
			Strategy: appsv1.DeploymentStrategy{
				Type:          appsv1.RollingUpdateDeploymentStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: &s, MaxUnavailable: &u},
			},
		},
	}
}

func TestFenceposts(t *testing.T) {
	cases := []struct {
		replicas            int32
		surge, unavailable  string
		wantSurge, wantUnav int32
	}{
		{10, "25%", "25%", 3, 2}, // surge rounds up, unavailable down
		{3, "25%", "25%", 1, 0},
		{4, "50%", "0", 2, 0},
		{5, "0", "0", 0, 1}, // both zero would never progress
		{1, "0%", "0%", 0, 1},
		{10, "2", "3", 2, 3},
		{0, "25%", "25%", 0, 0},
	}
	for _, c := range cases {
		d := rollingDeployment(c.replicas, c.surge, c.unavailable)
		if got := maxSurge(d); got != c.wantSurge {
			t.Errorf("replicas=%d surge=%s: maxSurge = %d, want %d", c.replicas, c.surge, got, c.wantSurge)
		}
		if got := maxUnavailable(d); got != c.wantUnav {
			t.Errorf("replicas=%d unavailable=%s: maxUnavailable = %d, want %d", c.replicas, c.unavailable, got, c.wantUnav)
		}
	}
	recreate := rollingDeployment(3, "1", "1")
	recreate.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}
	if maxSurge(recreate) != 0 || maxUnavailable(recreate) != 0 {
		t.Errorf("Recreate: surge %d unavailable %d, want 0 and 0", maxSurge(recreate), maxUnavailable(recreate))
	}
}

func rs(name string, spec, available int32) *appsv1.ReplicaSet {
	return &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("uid-" + name)},
		Spec:       appsv1.ReplicaSetSpec{Replicas: &spec},
		Status:     appsv1.ReplicaSetStatus{Replicas: spec, AvailableReplicas: available, ReadyReplicas: available},
	}
}

func TestNewRSReplicas(t *testing.T) {
	d := rollingDeployment(10, "3", "2")
	cases := []struct {
		old, cur, want int32
	}{
		{10, 0, 3},  // surge 3 above 10
		{8, 3, 5},   // 11 exist, 13 allowed: +2
		{10, 3, 3},  // already at 13
		{0, 9, 10},  // never beyond spec.replicas
		{0, 10, 10}, // done
	}
	for _, c := range cases {
		old, newRS := rs("old", c.old, c.old), rs("new", c.cur, 0)
		if got := newRSReplicas(d, []*appsv1.ReplicaSet{old, newRS}, newRS); got != c.want {
			t.Errorf("old=%d new=%d: newRSReplicas = %d, want %d", c.old, c.cur, got, c.want)
		}
	}
	recreate := rollingDeployment(10, "3", "2")
	recreate.Spec.Strategy.Type = appsv1.RecreateDeploymentStrategyType
	if got := newRSReplicas(recreate, nil, rs("new", 0, 0)); got != 10 {
		t.Errorf("Recreate: newRSReplicas = %d, want 10", got)
	}
}

func TestOldScaleDownRoom(t *testing.T) {
	d := rollingDeployment(10, "3", "2") // min available 8
	cases := []struct {
		old, oldAvail, cur, curAvail, want int32
	}{
		{10, 10, 3, 0, 2}, // 13 pods, 3 new unavailable: 13-8-3
		{10, 10, 3, 3, 5}, // new ones available: 13-8-0
		{10, 10, 0, 0, 2},
		{8, 8, 3, 0, 0},
	}
	for _, c := range cases {
		old, newRS := rs("old", c.old, c.oldAvail), rs("new", c.cur, c.curAvail)
		if got := oldScaleDownRoom(d, []*appsv1.ReplicaSet{old, newRS}, newRS); got != c.want {
			t.Errorf("%+v: room = %d, want %d", c, got, c.want)
		}
	}
}

func TestProportionalScaling(t *testing.T) {
	// A rollout of 10 (surge 3) is mid-way, old 8 + new 5 = 13 pods, when
	// the user scales to 15: 25%% surge of 15 rounds up to 4, so 19 are
	// allowed and the 6 extra are shared 8:5 (kube's documented example
	// shape): old 8->12, new 5->7.
	d := rollingDeployment(15, "25%", "25%")
	old, newRS := rs("old", 8, 8), rs("new", 5, 0)
	old.CreationTimestamp = metav1.Unix(100, 0)
	newRS.CreationTimestamp = metav1.Unix(200, 0)
	for _, r := range []*appsv1.ReplicaSet{old, newRS} {
		setReplicasAnnotations(r, 10, 13)
	}
	got := proportionalSizes(d, []*appsv1.ReplicaSet{old, newRS})
	if got["old"] != 12 || got["new"] != 7 {
		t.Errorf("sizes = %v, want old 12 new 7", got)
	}

	// Scaling down to 5 (surge 2, 7 allowed) shrinks both, in proportion.
	d = rollingDeployment(5, "25%", "25%")
	got = proportionalSizes(d, []*appsv1.ReplicaSet{old, newRS})
	if got["old"]+got["new"] != 7 || got["old"] <= got["new"] {
		t.Errorf("scale down sizes = %v, want 7 in total, old the larger", got)
	}

	// To zero: everything goes.
	d = rollingDeployment(0, "25%", "25%")
	got = proportionalSizes(d, []*appsv1.ReplicaSet{old, newRS})
	if got["old"] != 0 || got["new"] != 0 {
		t.Errorf("scale to zero sizes = %v, want all 0", got)
	}
}

func TestActiveOrLatestAndScalingEvent(t *testing.T) {
	old, newRS := rs("old", 0, 0), rs("new", 3, 3)
	if got := activeOrLatest(newRS, []*appsv1.ReplicaSet{old}); got != newRS {
		t.Errorf("one active: got %v, want new", got)
	}
	old2 := rs("old2", 2, 2)
	if got := activeOrLatest(newRS, []*appsv1.ReplicaSet{old2}); got != nil {
		t.Errorf("two active: got %s, want nil (rollout in progress)", got.Name)
	}
	d := rollingDeployment(5, "25%", "25%")
	setReplicasAnnotations(newRS, 3, 4)
	if !isScalingEvent(d, []*appsv1.ReplicaSet{newRS}) {
		t.Error("replicaset annotated for 3 replicas under a 5-replica deployment: want a scaling event")
	}
	setReplicasAnnotations(newRS, 5, 7)
	if isScalingEvent(d, []*appsv1.ReplicaSet{newRS}) {
		t.Error("annotation matches spec.replicas: want no scaling event")
	}
}

func TestRevisionAnnotationsOnRollback(t *testing.T) {
	d := rollingDeployment(3, "25%", "25%")
	d.Annotations = map[string]string{"team": "a", revisionAnnotation: "2", lastAppliedAnnotation: "{}"}
	back := rs("web-1", 0, 0)
	back.Annotations = map[string]string{revisionAnnotation: "1"}
	if !setNewRSAnnotations(d, back, 3, true) {
		t.Fatal("want a change")
	}
	want := map[string]string{revisionAnnotation: "3", revisionHistoryAnno: "1", "team": "a"}
	if fmt.Sprint(back.Annotations) != fmt.Sprint(want) {
		t.Errorf("annotations = %v, want %v", back.Annotations, want)
	}
	if setNewRSAnnotations(d, back, 3, true) {
		t.Error("second call changed annotations again; want idempotent")
	}
	fresh := rs("web-2", 0, 0)
	setNewRSAnnotations(d, fresh, 1, false)
	if fresh.Annotations[desiredReplicasAnno] != "3" || fresh.Annotations[maxReplicasAnno] != "4" || fresh.Annotations[revisionAnnotation] != "1" {
		t.Errorf("new replicaset annotations = %v, want desired 3, max 4, revision 1", fresh.Annotations)
	}
}
