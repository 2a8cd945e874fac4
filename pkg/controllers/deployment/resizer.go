package deployment

import appsv1 "k8s.io/api/apps/v1"

// resizer collects the resizes of one scaling step. Each resize is
// applied to a copy of the ReplicaSet as the write would apply it, so the
// arithmetic later in the same step sees the sizes the earlier writes
// leave behind (a rolling scale-down may shrink one ReplicaSet twice).
type resizer struct {
	d   *appsv1.Deployment
	out []resize
}

func newResizer(d *appsv1.Deployment) *resizer { return &resizer{d: d} }

// resize plans setting rs to n, with the replica annotations for the
// Deployment's current size. Nothing is planned if neither changes. It
// returns rs as it will be, and whether its size changes.
func (z *resizer) resize(rs *appsv1.ReplicaSet, n int32) (*appsv1.ReplicaSet, bool) {
	desired := replicas(z.d.Spec.Replicas)
	maxReplicas := desired + maxSurge(z.d)
	old := replicas(rs.Spec.Replicas)
	cp := rs.DeepCopy()
	if !setReplicasAnnotations(cp, desired, maxReplicas) && old == n {
		return rs, false
	}
	cp.Spec.Replicas = &n
	z.out = append(z.out, resize{ReplicaSet: rs, From: old, To: n, Desired: desired, MaxReplicas: maxReplicas})
	return cp, old != n
}

// action is the scaling step, or nil if it resizes nothing.
func (z *resizer) action(describe string) *action {
	if len(z.out) == 0 {
		return nil
	}
	return &action{Kind: actScale, Resizes: z.out, Describe: describe}
}

// scaleToSpec resizes the ReplicaSets to a changed spec.replicas without
// rolling out. With one active ReplicaSet it simply gets spec.replicas.
// Mid-rollout the extra (or missing) replicas are spread over the active
// ReplicaSets in proportion to their size, as kube does, so that a rollout
// neither speeds up nor restarts because someone scaled.
func (z *resizer) scaleToSpec(newRS *appsv1.ReplicaSet, oldRSs []*appsv1.ReplicaSet) {
	want := replicas(z.d.Spec.Replicas)
	if only := activeOrLatest(newRS, oldRSs); only != nil {
		z.resize(only, want)
		return
	}
	if isSaturated(z.d, newRS) {
		for _, rs := range active(oldRSs) {
			z.resize(rs, 0)
		}
		return
	}
	if !isRollingUpdate(z.d) {
		return
	}
	rss := active(withNew(oldRSs, newRS))
	sizes := proportionalSizes(z.d, rss)
	for _, rs := range rss {
		z.resize(rs, sizes[rs.Name])
	}
}
