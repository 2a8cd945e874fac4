package deployment

import (
	"fmt"
	"sort"

	appsv1 "k8s.io/api/apps/v1"
)

// scaleOnly plans a pass that resizes without rolling out: a paused
// Deployment, or one whose spec.replicas changed. A paused Deployment also
// cleans up old history once nothing needs resizing.
func (pl *planner) scaleOnly(describe string) plan {
	newRS, oldRSs, _ := pl.newAndOld(false)
	st := computeStatusAt(pl.d, withNew(oldRSs, newRS), newRS, pl.now)
	z := newResizer(pl.d)
	z.scaleToSpec(newRS, oldRSs)
	if act := z.action(describe); act != nil {
		return pl.finish(*act, st, false)
	}
	if pl.d.Spec.Paused {
		return pl.finish(pl.cleanup(oldRSs, describe), st, false)
	}
	return pl.finish(none(describe), st, false)
}

// cleanup is the action that deletes the oldest old ReplicaSets beyond
// revisionHistoryLimit, or none if there is nothing to delete.
func (pl *planner) cleanup(oldRSs []*appsv1.ReplicaSet, describe string) action {
	dels := beyondHistory(pl.d, oldRSs)
	if len(dels) == 0 {
		return none(describe)
	}
	return action{Kind: actCleanup, Deletes: dels,
		Describe: fmt.Sprintf("%s; deleted %d old replicasets beyond revisionHistoryLimit", describe, len(dels))}
}

// beyondHistory picks the old ReplicaSets to delete: the lowest revisions
// beyond revisionHistoryLimit, and of those only the ones fully scaled down
// and settled (a ReplicaSet still holding pods is history in the making).
func beyondHistory(d *appsv1.Deployment, oldRSs []*appsv1.ReplicaSet) []*appsv1.ReplicaSet {
	if d.Spec.RevisionHistoryLimit == nil {
		return nil
	}
	var alive []*appsv1.ReplicaSet
	for _, rs := range oldRSs {
		if rs != nil && rs.DeletionTimestamp == nil {
			alive = append(alive, rs)
		}
	}
	extra := len(alive) - int(*d.Spec.RevisionHistoryLimit)
	if extra <= 0 {
		return nil
	}
	sort.SliceStable(alive, func(i, j int) bool {
		ri, rj := revisionOf(alive[i]), revisionOf(alive[j])
		if ri == rj {
			return alive[i].CreationTimestamp.Before(&alive[j].CreationTimestamp)
		}
		return ri < rj
	})
	var out []*appsv1.ReplicaSet
	for _, rs := range alive[:extra] {
		if rs.Status.Replicas != 0 || replicas(rs.Spec.Replicas) != 0 || rs.Generation > rs.Status.ObservedGeneration {
			continue
		}
		out = append(out, rs)
	}
	return out
}
