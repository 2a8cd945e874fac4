package deployment

import (
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// fenceposts resolves maxSurge and maxUnavailable against the desired
// replicas: percentages round surge up and unavailable down (so a rollout
// always makes progress but never dips below what was promised), and both
// zero would deadlock, so unavailable becomes 1.
func fenceposts(d *appsv1.Deployment) (surge, unavailable int32) {
	ru := d.Spec.Strategy.RollingUpdate
	zero := intstr.FromInt32(0)
	ms, mu := &zero, &zero
	if ru != nil && ru.MaxSurge != nil {
		ms = ru.MaxSurge
	}
	if ru != nil && ru.MaxUnavailable != nil {
		mu = ru.MaxUnavailable
	}
	desired := int(replicas(d.Spec.Replicas))
	s, err := intstr.GetScaledValueFromIntOrPercent(ms, desired, true)
	if err != nil {
		s = 0
	}
	u, err := intstr.GetScaledValueFromIntOrPercent(mu, desired, false)
	if err != nil {
		u = 0
	}
	if s == 0 && u == 0 {
		u = 1
	}
	return int32(s), int32(u)
}

func isRollingUpdate(d *appsv1.Deployment) bool {
	return d.Spec.Strategy.Type == appsv1.RollingUpdateDeploymentStrategyType
}

// maxSurge is how many pods above spec.replicas a rollout may run.
func maxSurge(d *appsv1.Deployment) int32 {
	if !isRollingUpdate(d) {
		return 0
	}
	s, _ := fenceposts(d)
	return s
}

// maxUnavailable is how many of spec.replicas may be unavailable.
func maxUnavailable(d *appsv1.Deployment) int32 {
	want := replicas(d.Spec.Replicas)
	if !isRollingUpdate(d) || want == 0 {
		return 0
	}
	_, u := fenceposts(d)
	return min(u, want)
}

// newRSReplicas is the size the new ReplicaSet may grow to now: under
// RollingUpdate, up to spec.replicas while all ReplicaSets together stay
// within spec.replicas+maxSurge; under Recreate, spec.replicas at once.
func newRSReplicas(d *appsv1.Deployment, all []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet) int32 {
	want := replicas(d.Spec.Replicas)
	if !isRollingUpdate(d) {
		return want
	}
	cur := replicas(newRS.Spec.Replicas)
	limit := want + maxSurge(d)
	total := sumSpec(all)
	if total >= limit {
		return cur
	}
	return cur + min(limit-total, want-cur)
}

// oldScaleDownRoom is how many old replicas may go now without dropping
// below spec.replicas-maxUnavailable available pods, counting the new
// ReplicaSet's not-yet-available pods as already missing.
func oldScaleDownRoom(d *appsv1.Deployment, all []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet) int32 {
	minAvailable := replicas(d.Spec.Replicas) - maxUnavailable(d)
	newUnavailable := replicas(newRS.Spec.Replicas) - newRS.Status.AvailableReplicas
	return sumSpec(all) - minAvailable - newUnavailable
}
