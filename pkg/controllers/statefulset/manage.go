package statefulset

import (
	"context"
	"errors"
	"sort"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// plan is one reconcile's view of a set: the set at its current and update
// revisions, and the pods it has, by ordinal in range and beyond it.
type plan struct {
	set        *appsv1.StatefulSet // at the update revision: the spec as it is
	current    *appsv1.StatefulSet // the spec with the current revision's template
	currentRev string
	updateRev  string
	now        time.Time
	ordered    bool
	byOrdinal  map[int]*corev1.Pod
	condemned  []*corev1.Pod // beyond the range, highest ordinal first
}

func newPlan(s, current *appsv1.StatefulSet, h *history, pods []*corev1.Pod, now time.Time) *plan {
	p := &plan{set: s, current: current, currentRev: h.current.Name, updateRev: h.update.Name, now: now,
		ordered: s.Spec.PodManagementPolicy != appsv1.ParallelPodManagement, byOrdinal: map[int]*corev1.Pod{}}
	for _, pod := range pods {
		if inRange(s, pod) {
			n, _ := ordinalOf(s, pod)
			p.byOrdinal[n] = pod
		} else {
			p.condemned = append(p.condemned, pod)
		}
	}
	sort.Slice(p.condemned, func(i, j int) bool {
		a, _ := ordinalOf(s, p.condemned[i])
		b, _ := ordinalOf(s, p.condemned[j])
		return a > b
	})
	return p
}

// result is what a step did: a description for the log, and how many
// pods it deleted for the rolling update (kube counts each out of
// currentReplicas at once).
type result struct {
	action           string
	deletedForUpdate int32
}

// step takes the next actions for the set, in kube's order:
//
//  1. the replica range, lowest ordinal first: create missing pods (and
//     their claims) at the revision their ordinal gets, replace failed
//     ones, create claims a pending pod lacks, and keep claim owners in
//     line with the retention policy; under OrderedReady stop at the
//     first pod created or not Running, Ready and available;
//  2. beyond the range: set claim owners for the scale-down policy, then
//     delete pods from the highest ordinal, under OrderedReady one at a
//     time;
//  3. with RollingUpdate, delete up to maxUnavailable pods at or above the
//     partition that are not at the update revision, highest first (they
//     come back at the update revision in step 1 of a later reconcile).
func (c *Controller) step(ctx context.Context, p *plan) (result, error) {
	if r, stop, err := c.processReplicas(ctx, p); stop || err != nil {
		return r, err
	}
	if r, stop, err := c.processCondemned(ctx, p); stop || err != nil {
		return r, err
	}
	if p.set.Spec.UpdateStrategy.Type == appsv1.OnDeleteStatefulSetStrategyType {
		return result{action: "none"}, nil
	}
	return c.rollingUpdate(ctx, p)
}

// processReplicas is step 1. Under Parallel it carries on past a pod's
// error and returns them all at the end.
func (c *Controller) processReplicas(ctx context.Context, p *plan) (result, bool, error) {
	s := p.set
	var errs []error
	for n := startOf(s); n < startOf(s)+replicasOf(s); n++ {
		r, stop, err := c.processReplica(ctx, p, n)
		if p.ordered && (stop || err != nil) {
			return r, true, err
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return result{action: "replica errors"}, true, errors.Join(errs...)
	}
	return result{}, false, nil
}

// processReplica looks after ordinal n; stop means OrderedReady must go
// no further this time.
func (c *Controller) processReplica(ctx context.Context, p *plan, n int) (result, bool, error) {
	s := p.set
	pod := p.byOrdinal[n]
	switch {
	case pod == nil:
		pod = p.versionedPod(n)
		if stale, err := c.claimIsStale(s, pod, n); err != nil || stale {
			return result{action: "wait for stale claims of " + pod.Name + " to be collected"}, true, err
		}
		if err := c.createPod(ctx, s, pod, n); err != nil {
			return result{action: "create " + pod.Name}, true, err
		}
		return result{action: "created " + pod.Name}, true, nil
	case isFailed(pod):
		if !isTerminating(pod) {
			if err := c.deletePod(ctx, s, pod); err != nil {
				return result{action: "delete failed " + pod.Name}, true, err
			}
		}
		return result{action: "replace failed " + pod.Name}, true, nil
	}
	if pod.Status.Phase == corev1.PodPending {
		if err := c.createClaims(ctx, s, pod, n); err != nil {
			return result{action: "create claims of " + pod.Name}, true, err
		}
	}
	switch {
	case p.ordered && isTerminating(pod):
		return result{action: "wait for " + pod.Name + " to terminate"}, true, nil
	case p.ordered && !isRunningAndReady(pod):
		return result{action: "wait for " + pod.Name + " to be Running and Ready"}, true, nil
	case p.ordered && !isAvailable(pod, s.Spec.MinReadySeconds, p.now):
		return result{action: "wait for " + pod.Name + " to be available"}, true, nil
	}
	if err := c.fixClaimRetention(ctx, s, pod, n); err != nil {
		return result{action: "update claims of " + pod.Name}, true, err
	}
	return result{}, false, nil
}

// versionedPod is the pod ordinal n gets when it is (re)created: below
// the partition at the current revision, from it up at the update
// revision, as kube's newVersionedStatefulSetPod.
func (p *plan) versionedPod(n int) *corev1.Pod {
	s := p.set
	ru := s.Spec.UpdateStrategy.RollingUpdate
	rolling := s.Spec.UpdateStrategy.Type == appsv1.RollingUpdateStatefulSetStrategyType
	if (rolling && ru == nil && n < startOf(s)+int(s.Status.CurrentReplicas)) || (ru != nil && n < startOf(s)+partitionOf(s)) {
		return newPod(p.current, n, p.currentRev)
	}
	return newPod(s, n, p.updateRev)
}

// processCondemned is step 2.
func (c *Controller) processCondemned(ctx context.Context, p *plan) (result, bool, error) {
	s := p.set
	var errs []error
	for _, pod := range p.condemned {
		n, _ := ordinalOf(s, pod)
		if err := c.fixClaimRetention(ctx, s, pod, n); err != nil {
			if p.ordered {
				return result{action: "update claims of " + pod.Name}, true, err
			}
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return result{action: "update claims"}, true, errors.Join(errs...)
	}
	first := p.firstUnhealthy()
	for _, pod := range p.condemned {
		if isTerminating(pod) {
			if p.ordered {
				return result{action: "wait for " + pod.Name + " to terminate"}, true, nil
			}
			continue
		}
		if p.ordered && pod != first && (!isRunningAndReady(pod) || !isAvailable(pod, s.Spec.MinReadySeconds, p.now)) {
			return result{action: "wait for " + pod.Name + " to be healthy before scaling down"}, true, nil
		}
		if err := c.deletePod(ctx, s, pod); err != nil {
			if p.ordered {
				return result{action: "delete " + pod.Name}, true, err
			}
			errs = append(errs, err)
			continue
		}
		if p.ordered {
			return result{action: "deleted " + pod.Name}, true, nil
		}
	}
	if len(errs) > 0 {
		return result{action: "scale down"}, true, errors.Join(errs...)
	}
	return result{}, false, nil
}

// firstUnhealthy is the lowest-ordinal pod in the range that is missing
// or not healthy, else the lowest-ordinal unhealthy one beyond it; nil
// when all are healthy. A missing pod is returned as nil too: it can
// never equal a condemned pod.
func (p *plan) firstUnhealthy() *corev1.Pod {
	s := p.set
	for n := startOf(s); n < startOf(s)+replicasOf(s); n++ {
		if pod := p.byOrdinal[n]; pod == nil || !isHealthy(pod) {
			return pod
		}
	}
	for i := len(p.condemned) - 1; i >= 0; i-- {
		if !isHealthy(p.condemned[i]) {
			return p.condemned[i]
		}
	}
	return nil
}

// rollingUpdate is step 3.
func (c *Controller) rollingUpdate(ctx context.Context, p *plan) (result, error) {
	s := p.set
	start, replicas := startOf(s), replicasOf(s)
	unavailable := 0
	for n := start; n < start+replicas; n++ {
		if pod := p.byOrdinal[n]; pod == nil || !isHealthy(pod) {
			unavailable++
		}
	}
	maxUnavailable := maxUnavailableOf(s)
	if unavailable >= maxUnavailable {
		return result{action: "wait for pods to be healthy before updating"}, nil
	}
	r := result{action: "none"}
	deleted := 0
	for n := start + replicas - 1; n >= start+partitionOf(s) && deleted < maxUnavailable-unavailable; n-- {
		pod := p.byOrdinal[n]
		if pod == nil || pod.Labels[revisionLabel] == p.updateRev || isTerminating(pod) {
			continue
		}
		if err := c.deletePod(ctx, s, pod); err != nil {
			return result{action: "delete " + pod.Name + " for update"}, err
		}
		deleted++
		r.action = "deleted pods for update, the last " + pod.Name
		r.deletedForUpdate++
	}
	return r, nil
}
