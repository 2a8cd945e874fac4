package deployment

import (
	"math"
	"sort"

	appsv1 "k8s.io/api/apps/v1"
)

// proportionalSizes computes the new size of each active ReplicaSet when
// the Deployment's allowed total (spec.replicas+maxSurge) changed. Each
// ReplicaSet gets its share by the max-replicas annotation it was last
// scaled for; rounding leftovers go to the largest one.
func proportionalSizes(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) map[string]int32 {
	want := replicas(d.Spec.Replicas)
	var allowed int32
	if want > 0 {
		allowed = want + maxSurge(d)
	}
	toAdd := allowed - sumSpec(rss)
	sorted := append([]*appsv1.ReplicaSet(nil), rss...)
	sort.SliceStable(sorted, func(i, j int) bool {
		a, b := sorted[i], sorted[j]
		if ra, rb := replicas(a.Spec.Replicas), replicas(b.Spec.Replicas); ra != rb {
			return ra > rb
		}
		if toAdd > 0 { // growing: newer first
			return b.CreationTimestamp.Before(&a.CreationTimestamp)
		}
		return a.CreationTimestamp.Before(&b.CreationTimestamp)
	})
	sizes := map[string]int32{}
	var added int32
	for _, rs := range sorted {
		p := proportion(d, rs, toAdd, added)
		sizes[rs.Name] = replicas(rs.Spec.Replicas) + p
		added += p
	}
	if toAdd != 0 && len(sorted) > 0 {
		sizes[sorted[0].Name] += toAdd - added
	}
	for name, n := range sizes {
		sizes[name] = max(n, 0)
	}
	return sizes
}

// proportion is rs's share of toAdd, capped by what is left to add.
func proportion(d *appsv1.Deployment, rs *appsv1.ReplicaSet, toAdd, added int32) int32 {
	if replicas(rs.Spec.Replicas) == 0 || toAdd == 0 || toAdd == added {
		return 0
	}
	share := fraction(d, rs)
	left := toAdd - added
	if toAdd > 0 {
		return min(share, left)
	}
	return max(share, left)
}

// fraction is how much rs should grow (or shrink) to keep its share of the
// Deployment's new allowed total.
func fraction(d *appsv1.Deployment, rs *appsv1.ReplicaSet) int32 {
	cur := replicas(rs.Spec.Replicas)
	if replicas(d.Spec.Replicas) == 0 {
		return -cur
	}
	total := replicas(d.Spec.Replicas) + maxSurge(d)
	was, ok := annotationInt(rs, maxReplicasAnno)
	if !ok || was == 0 {
		was = d.Status.Replicas
	}
	if was == 0 {
		return 0
	}
	return int32(math.Round(float64(cur)*float64(total)/float64(was))) - cur
}

// activeOrLatest returns the only ReplicaSet with replicas, or the newest
// one when none has any; nil when several are active (a rollout is on).
func activeOrLatest(newRS *appsv1.ReplicaSet, oldRSs []*appsv1.ReplicaSet) *appsv1.ReplicaSet {
	if newRS == nil && len(oldRSs) == 0 {
		return nil
	}
	olds := append([]*appsv1.ReplicaSet(nil), oldRSs...)
	byCreation(olds)
	for i, j := 0, len(olds)-1; i < j; i, j = i+1, j-1 {
		olds[i], olds[j] = olds[j], olds[i]
	}
	all := active(append(olds, newRS))
	switch len(all) {
	case 0:
		if newRS != nil {
			return newRS
		}
		return olds[0]
	case 1:
		return all[0]
	}
	return nil
}

// isSaturated: the new ReplicaSet has all of spec.replicas, was scaled for
// this size, and all are available — the old ones may go.
func isSaturated(d *appsv1.Deployment, rs *appsv1.ReplicaSet) bool {
	if rs == nil {
		return false
	}
	desired, ok := annotationInt(rs, desiredReplicasAnno)
	want := replicas(d.Spec.Replicas)
	return ok && replicas(rs.Spec.Replicas) == want && desired == want && rs.Status.AvailableReplicas == want
}

// isScalingEvent: some active ReplicaSet was sized for a different
// spec.replicas than the Deployment has now.
func isScalingEvent(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) bool {
	for _, rs := range active(rss) {
		if desired, ok := annotationInt(rs, desiredReplicasAnno); ok && desired != replicas(d.Spec.Replicas) {
			return true
		}
	}
	return false
}
