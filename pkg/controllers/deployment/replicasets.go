package deployment

import (
	"math"
	"sort"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
)

// Labels and annotations kube-controller-manager writes, with its names.
const (
	hashLabel             = appsv1.DefaultDeploymentUniqueLabelKey // "pod-template-hash"
	revisionAnnotation    = "deployment.kubernetes.io/revision"
	revisionHistoryAnno   = "deployment.kubernetes.io/revision-history"
	desiredReplicasAnno   = "deployment.kubernetes.io/desired-replicas"
	maxReplicasAnno       = "deployment.kubernetes.io/max-replicas"
	lastAppliedAnnotation = corev1.LastAppliedConfigAnnotation
	rollbackToAnnotation  = "deprecated.deployment.rollback.to"
	maxRevHistoryChars    = 2000
)

func replicas(n *int32) int32 {
	if n == nil {
		return 1
	}
	return *n
}

// sumSpec is the sum of spec.replicas: the pods these ReplicaSets are
// asked for, which bounds what can exist.
func sumSpec(rss []*appsv1.ReplicaSet) int32 {
	var n int32
	for _, rs := range rss {
		if rs != nil {
			n += replicas(rs.Spec.Replicas)
		}
	}
	return n
}

// sumStatus adds a status field over rss.
func sumStatus(rss []*appsv1.ReplicaSet, field func(*appsv1.ReplicaSetStatus) int32) int32 {
	var n int32
	for _, rs := range rss {
		if rs != nil {
			n += field(&rs.Status)
		}
	}
	return n
}

func statusReplicas(s *appsv1.ReplicaSetStatus) int32  { return s.Replicas }
func statusReady(s *appsv1.ReplicaSetStatus) int32     { return s.ReadyReplicas }
func statusAvailable(s *appsv1.ReplicaSetStatus) int32 { return s.AvailableReplicas }

// sumTerminating is nil if any ReplicaSet does not report terminatingReplicas.
func sumTerminating(rss []*appsv1.ReplicaSet) *int32 {
	var n int32
	for _, rs := range rss {
		if rs == nil {
			continue
		}
		if rs.Status.TerminatingReplicas == nil {
			return nil
		}
		n += *rs.Status.TerminatingReplicas
	}
	return &n
}

func active(rss []*appsv1.ReplicaSet) []*appsv1.ReplicaSet {
	var out []*appsv1.ReplicaSet
	for _, rs := range rss {
		if rs != nil && replicas(rs.Spec.Replicas) > 0 {
			out = append(out, rs)
		}
	}
	return out
}

// equalIgnoringHash reports whether two pod templates are the same apart
// from the pod-template-hash label: the test for "this ReplicaSet runs
// this Deployment's current template".
func equalIgnoringHash(a, b *corev1.PodTemplateSpec) bool {
	a, b = a.DeepCopy(), b.DeepCopy()
	delete(a.Labels, hashLabel)
	delete(b.Labels, hashLabel)
	if len(a.Labels) == 0 {
		a.Labels = nil
	}
	if len(b.Labels) == 0 {
		b.Labels = nil
	}
	return equality.Semantic.DeepEqual(a, b)
}

// byCreation sorts oldest first (then by name), as kube's ReplicaSetsByCreationTimestamp.
func byCreation(rss []*appsv1.ReplicaSet) {
	sort.SliceStable(rss, func(i, j int) bool {
		a, b := rss[i], rss[j]
		if a.CreationTimestamp.Equal(&b.CreationTimestamp) {
			return a.Name < b.Name
		}
		return a.CreationTimestamp.Before(&b.CreationTimestamp)
	})
}

// findNew returns the oldest ReplicaSet whose template equals d's.
func findNew(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) *appsv1.ReplicaSet {
	sorted := append([]*appsv1.ReplicaSet(nil), rss...)
	byCreation(sorted)
	for _, rs := range sorted {
		if equalIgnoringHash(&rs.Spec.Template, &d.Spec.Template) {
			return rs
		}
	}
	return nil
}

// findOld returns the ReplicaSets other than newRS: all of them, and those
// still asked for pods.
func findOld(rss []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet) (all, withReplicas []*appsv1.ReplicaSet) {
	for _, rs := range rss {
		if newRS != nil && rs.UID == newRS.UID {
			continue
		}
		all = append(all, rs)
		if replicas(rs.Spec.Replicas) != 0 {
			withReplicas = append(withReplicas, rs)
		}
	}
	return all, withReplicas
}

func revisionOf(rs *appsv1.ReplicaSet) int64 {
	v, err := strconv.ParseInt(rs.Annotations[revisionAnnotation], 10, 64)
	if err != nil {
		return 0
	}
	return v
}

func maxRevision(rss []*appsv1.ReplicaSet) int64 {
	var m int64
	for _, rs := range rss {
		m = max(m, revisionOf(rs))
	}
	return m
}

// annotationInt reads an integer annotation.
func annotationInt(rs *appsv1.ReplicaSet, name string) (int32, bool) {
	v, err := strconv.ParseInt(rs.Annotations[name], 10, 32)
	if err != nil {
		return 0, false
	}
	return int32(v), true
}

// setReplicasAnnotations records, on a ReplicaSet, the Deployment size it
// was scaled for and the most pods the rollout allowed then; proportional
// scaling reads them back. It reports whether anything changed.
func setReplicasAnnotations(rs *appsv1.ReplicaSet, desired, maxReplicas int32) bool {
	d, m := strconv.Itoa(int(desired)), strconv.Itoa(int(maxReplicas))
	if rs.Annotations[desiredReplicasAnno] == d && rs.Annotations[maxReplicasAnno] == m {
		return false
	}
	if rs.Annotations == nil {
		rs.Annotations = map[string]string{}
	}
	rs.Annotations[desiredReplicasAnno] = d
	rs.Annotations[maxReplicasAnno] = m
	return true
}

// copyAnnotations copies d's user annotations onto rs (not the ones the
// controller owns), reporting whether rs changed.
func copyAnnotations(d *appsv1.Deployment, rs *appsv1.ReplicaSet) bool {
	changed := false
	if rs.Annotations == nil {
		rs.Annotations = map[string]string{}
	}
	for k, v := range d.Annotations {
		switch k {
		case lastAppliedAnnotation, revisionAnnotation, revisionHistoryAnno, desiredReplicasAnno, maxReplicasAnno, rollbackToAnnotation:
			continue
		}
		if old, ok := rs.Annotations[k]; ok && old == v {
			continue
		}
		rs.Annotations[k] = v
		changed = true
	}
	return changed
}

// setNewRSAnnotations gives the new ReplicaSet d's annotations and
// revision; a ReplicaSet brought back (a rollback) moves its old revision
// into revision-history. It reports whether rs changed.
func setNewRSAnnotations(d *appsv1.Deployment, rs *appsv1.ReplicaSet, newRevision int64, exists bool) bool {
	changed := copyAnnotations(d, rs)
	oldRevision := rs.Annotations[revisionAnnotation]
	oldInt, err := strconv.ParseInt(oldRevision, 10, 64)
	if err != nil && oldRevision != "" {
		return changed
	}
	if oldInt < newRevision {
		rs.Annotations[revisionAnnotation] = strconv.FormatInt(newRevision, 10)
		changed = true
		if oldRevision != "" {
			hist := rs.Annotations[revisionHistoryAnno]
			if hist == "" {
				hist = oldRevision
			} else {
				hist += "," + oldRevision
			}
			for len(hist) > maxRevHistoryChars {
				if i := indexComma(hist); i >= 0 {
					hist = hist[i+1:]
				} else {
					break
				}
			}
			rs.Annotations[revisionHistoryAnno] = hist
		}
	}
	if !exists && setReplicasAnnotations(rs, replicas(d.Spec.Replicas), replicas(d.Spec.Replicas)+maxSurge(d)) {
		changed = true
	}
	return changed
}

func indexComma(s string) int {
	for i := range len(s) {
		if s[i] == ',' {
			return i
		}
	}
	return -1
}

func hasProgressDeadline(d *appsv1.Deployment) bool {
	return d.Spec.ProgressDeadlineSeconds != nil && *d.Spec.ProgressDeadlineSeconds != math.MaxInt32
}
