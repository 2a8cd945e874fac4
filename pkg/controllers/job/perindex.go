package job

// spec.backoffLimitPerIndex: an Indexed Job's index is retried until
// backoffLimitPerIndex of its pods failed (counted failures only), then
// it fails for good and goes into status.failedIndexes; the other indexes
// go on. Each pod carries in its annotation
// batch.kubernetes.io/job-index-failure-count how many pods of its index
// failed before it (and ignored failures in
// batch.kubernetes.io/job-index-ignored-failure-count), copied forward
// from the pod it replaces, as kube does.
//
// Kube keeps the finalizer on the last failed pod of an index until its
// replacement exists, so the count survives the pod's deletion. Here the
// failed pods simply stay (nothing deletes them) and the replacement
// reads the count from them; a failed pod deleted by hand before its
// replacement is made loses its index's count.

import (
	"strconv"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

func hasBackoffLimitPerIndex(job *batchv1.Job) bool {
	return isIndexed(job) && job.Spec.BackoffLimitPerIndex != nil
}

// annotationCount reads a non-negative count annotation, 0 when absent
// or malformed (as kube reads it).
func annotationCount(p *corev1.Pod, key string) int32 {
	n, err := strconv.ParseInt(p.Annotations[key], 10, 32)
	if err != nil || n < 0 {
		return 0
	}
	return int32(n)
}

// indexFailedForGood: pod's failure ends its index, by a FailIndex rule
// or because it was the last counted failure the limit allows.
func indexFailedForGood(job *batchv1.Job, pod *corev1.Pod, m failureMatch) bool {
	if m.action == batchv1.PodFailurePolicyActionFailIndex {
		return true
	}
	return m.counts() && annotationCount(pod, batchv1.JobIndexFailureCountAnnotation) >= *job.Spec.BackoffLimitPerIndex
}

// lastFailedByIndex returns, per index, the failed pod a new pod of that
// index replaces: the one with most failures before it, the latest to
// finish among equals.
func lastFailedByIndex(job *batchv1.Job, pods []*corev1.Pod) map[int]*corev1.Pod {
	absolute := func(p *corev1.Pod) int32 {
		return annotationCount(p, batchv1.JobIndexFailureCountAnnotation) + annotationCount(p, batchv1.JobIndexIgnoredFailureCountAnnotation)
	}
	out := map[int]*corev1.Pod{}
	for _, p := range pods {
		if !isFailed(p) || !validIndex(job, p) {
			continue
		}
		ix := completionIndex(p)
		prev, ok := out[ix]
		if !ok || absolute(p) > absolute(prev) || (absolute(p) == absolute(prev) && !finishedAt(p).Before(finishedAt(prev))) {
			out[ix] = p
		}
	}
	return out
}

// withFailureCounts sets pod's failure count annotations from the pod it
// replaces (nil for an index's first pod: count 0).
func withFailureCounts(pod *corev1.Pod, job *batchv1.Job, replaced *corev1.Pod) {
	var failed, ignored int32
	if replaced != nil {
		failed = annotationCount(replaced, batchv1.JobIndexFailureCountAnnotation)
		ignored = annotationCount(replaced, batchv1.JobIndexIgnoredFailureCountAnnotation)
		if matchFailurePolicy(job, replaced).counts() {
			failed++
		} else {
			ignored++
		}
	}
	pod.Annotations[batchv1.JobIndexFailureCountAnnotation] = strconv.Itoa(int(failed))
	if ignored > 0 {
		pod.Annotations[batchv1.JobIndexIgnoredFailureCountAnnotation] = strconv.Itoa(int(ignored))
	}
}

// indexBackoff is how long index's next pod must still wait: kube's
// back-off for as many failures as the index had, from when the last
// one ended.
func indexBackoff(base time.Duration, replaced *corev1.Pod, now time.Time) time.Duration {
	if replaced == nil {
		return 0
	}
	n := annotationCount(replaced, batchv1.JobIndexFailureCountAnnotation) + annotationCount(replaced, batchv1.JobIndexIgnoredFailureCountAnnotation) + 1
	return backoffRemaining(base, int(n), finishedAt(replaced), now)
}
