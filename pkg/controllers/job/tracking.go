package job

// Counting finished pods with the batch.kubernetes.io/job-tracking
// finalizer, as kube does, so no pod is counted twice or never:
//
//  1. the uids of finished pods that still carry the finalizer are added to
//     status.uncountedTerminatedPods (a status write);
//  2. their finalizers are removed (the pods may now go);
//  3. every uid in uncountedTerminatedPods moves to status.succeeded or
//     status.failed (a status write).
//
// A crash between any two steps leaves a state the next reconcile
// finishes: a uid already in the list is not added again, a pod without
// the finalizer is never counted again. released remembers the pods whose
// finalizer this controller removed until the cache shows it, so a stale
// cache cannot count them twice.

import (
	"context"
	"fmt"
	"sync"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
)

// releasedPods is the set of pods whose finalizer was removed but whose
// cached copy may still show it.
type releasedPods struct {
	mu   sync.Mutex
	uids sets.Set[types.UID]
}

func (r *releasedPods) add(uid types.UID) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.uids == nil {
		r.uids = sets.New[types.UID]()
	}
	r.uids.Insert(uid)
}

// pending reports whether pod still needs counting: finished, with the
// finalizer, and not released already. A pod seen without the finalizer
// is forgotten.
func (r *releasedPods) pending(p *corev1.Pod) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !hasTrackingFinalizer(p) {
		r.uids.Delete(p.UID)
		return false
	}
	return isFinished(p) && !r.uids.Has(p.UID)
}

// countFinished runs the three steps for pods and returns the Job as
// last written.
func (c *Controller) countFinished(ctx context.Context, job *batchv1.Job, pods []*corev1.Pod) (*batchv1.Job, error) {
	var toRelease []*corev1.Pod
	for _, p := range pods {
		if c.released.pending(p) {
			toRelease = append(toRelease, p)
		}
	}
	if len(toRelease) > 0 {
		st := job.Status.DeepCopy()
		c.recordFinished(job, st, pods, toRelease)
		updated, err := c.writeStatus(ctx, job, st)
		if err != nil {
			return nil, err
		}
		job = updated
		for _, p := range toRelease {
			if err := c.removeFinalizer(ctx, p); err != nil {
				return nil, err
			}
			c.released.add(p.UID)
		}
	}
	unc := job.Status.UncountedTerminatedPods
	if unc == nil || len(unc.Succeeded)+len(unc.Failed) == 0 {
		return job, nil
	}
	st := job.Status.DeepCopy()
	st.Succeeded += int32(len(unc.Succeeded))
	st.Failed += int32(len(unc.Failed))
	st.UncountedTerminatedPods = &batchv1.UncountedTerminatedPods{}
	return c.writeStatus(ctx, job, st)
}

// recordFinished notes in st the pods about to be released: uids in
// uncountedTerminatedPods; for an Indexed Job, succeeded indexes straight
// into completedIndexes (the index is enough to count each once) and
// indexes failed for good into failedIndexes. A failure the failure
// policy ignores is not recorded, so it never reaches status.failed; one
// that fails the Job sets FailureTarget in the same write, before any
// finalizer goes, as kube does.
func (c *Controller) recordFinished(job *batchv1.Job, st *batchv1.JobStatus, pods, toRelease []*corev1.Pod) {
	unc := uncounted(st)
	listed := sets.New(unc.Succeeded...).Insert(unc.Failed...)
	indexed, perIndex := isIndexed(job), hasBackoffLimitPerIndex(job)
	done := parseIntervals(st.CompletedIndexes, completions(job))
	var failedIx intervals
	if perIndex && st.FailedIndexes != nil {
		failedIx = parseIntervals(*st.FailedIndexes, completions(job))
	}
	for _, p := range toRelease {
		switch {
		case listed.Has(p.UID) || (indexed && !validIndex(job, p)):
		case isSucceeded(p) && indexed:
			done = done.with(completionIndex(p))
		case isSucceeded(p):
			unc.Succeeded = append(unc.Succeeded, p.UID)
		default:
			m := matchFailurePolicy(job, p)
			if m.counts() {
				unc.Failed = append(unc.Failed, p.UID)
			}
			if perIndex && indexFailedForGood(job, p, m) {
				failedIx = failedIx.with(completionIndex(p))
			}
		}
	}
	if indexed {
		st.CompletedIndexes = done.String()
		st.Succeeded = int32(done.total())
	}
	if perIndex {
		s := failedIx.String()
		st.FailedIndexes = &s
	}
	if !hasCondition(st, batchv1.JobFailureTarget) && !hasCondition(st, batchv1.JobSuccessCriteriaMet) {
		if msg := failJobMessage(job, pods); msg != "" {
			setCondition(st, batchv1.JobFailureTarget, corev1.ConditionTrue, batchv1.JobReasonPodFailurePolicy, msg, c.clock.Now())
		}
	}
}

// uncounted returns st's list of uncounted pods, creating it.
func uncounted(st *batchv1.JobStatus) *batchv1.UncountedTerminatedPods {
	if st.UncountedTerminatedPods == nil {
		st.UncountedTerminatedPods = &batchv1.UncountedTerminatedPods{}
	}
	return st.UncountedTerminatedPods
}

// writeStatus writes st as job's status (a conflict means the cache was
// behind: the driver retries with a fresh copy).
func (c *Controller) writeStatus(ctx context.Context, job *batchv1.Job, st *batchv1.JobStatus) (*batchv1.Job, error) {
	j := job.DeepCopy()
	j.Status = *st
	out, err := c.client.BatchV1().Jobs(j.Namespace).UpdateStatus(ctx, j, metaUpdate)
	if err != nil {
		return nil, fmt.Errorf("writing the status of job %s/%s: %w", j.Namespace, j.Name, err)
	}
	c.written.Wrote(j.Namespace+"/"+j.Name, out.ResourceVersion)
	return out, nil
}
