package job

import (
	"context"
	"fmt"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/miniapi/miniapi/pkg/controllers/internal/owner"
	"github.com/miniapi/miniapi/pkg/controllers/internal/pass"
)

var metaUpdate = metav1.UpdateOptions{}

// The messages kube's job-controller writes in conditions and events.
const (
	msgBackoffLimit = "Job has reached the specified backoff limit"
	msgDeadline     = "Job was active longer than specified deadline"
	msgCompletions  = "Reached expected number of succeeded pods"
	msgMaxFailedIx  = "Job has exceeded the specified maximal number of failed indexes"
	msgFailedIx     = "Job has failed indexes"
)

// reconcileJob brings the Job named by key one step closer to its end.
//
// It is level-based: it reads the Job and its pods from the caches,
// counts the pods that finished (tracking.go), then decides from the
// counts alone — never from what happened before — whether the Job has
// failed, succeeded, is suspended, or needs pods created or deleted, and
// writes the status that says so. Running it again at any time is safe:
// what is done is seen as done.
func (c *Controller) reconcileJob(ctx context.Context, key string) error {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil
	}
	job, err := c.jobs.Jobs(ns).Get(name)
	if apierrors.IsNotFound(err) {
		c.expect.Forget(key)
		c.written.Forget(key)
		return nil
	}
	if err != nil {
		return err
	}
	if c.written.Pending(key, job.ResourceVersion) {
		pass.Log(ctx, c.log, "Job", job, "reconciled job", "job", key, "action", "wait for the cache to show the last status write")
		return nil
	}
	if job.DeletionTimestamp != nil {
		return c.releaseAll(ctx, key, job)
	}
	// Expectations are read before the pods, as in kube: a creation seen
	// after the pods were listed (say, while countFinished writes) is not
	// in this pass's list, and acting as if it were would make its index
	// again.
	synced := c.expect.Satisfied(key)
	pods, err := c.claimPods(ctx, job)
	if err != nil {
		return err
	}
	if job, err = c.countFinished(ctx, job, pods); err != nil {
		return err
	}
	if finished(job) {
		return c.afterFinished(ctx, key, job, pods, synced)
	}
	now := c.clock.Now()
	st := job.Status.DeepCopy()
	uncounted(st)
	active := filter(pods, isActive)
	var action string
	if !synced {
		adds, dels := c.expect.Pending(key)
		action = fmt.Sprintf("wait for %d creations and %d deletions to be observed", adds, dels)
	} else if action, err = c.step(ctx, key, job, st, pods, now); err != nil {
		return err
	}
	pass.Log(ctx, c.log, "Job", job, "reconciled job", "job", key, "active", len(active), "succeeded", st.Succeeded, "failed", st.Failed, "action", action)
	if !apiequality.Semantic.DeepEqual(job.Status, *st) {
		if _, err := c.writeStatus(ctx, job, st); err != nil {
			return err
		}
	}
	if st.StartTime != nil && job.Spec.ActiveDeadlineSeconds != nil && !finishedStatus(st) {
		deadline := st.StartTime.Add(time.Duration(*job.Spec.ActiveDeadlineSeconds) * time.Second)
		if wait := deadline.Sub(now); wait > 0 {
			c.driver.EnqueueAfter(key, wait)
		}
	}
	return nil
}

// step decides what the Job needs now and does it, filling st.
func (c *Controller) step(ctx context.Context, key string, job *batchv1.Job, st *batchv1.JobStatus, pods []*corev1.Pod, now time.Time) (string, error) {
	active := filter(pods, isActive)
	suspended := job.Spec.Suspend != nil && *job.Spec.Suspend
	if hasBackoffLimitPerIndex(job) && st.FailedIndexes == nil {
		st.FailedIndexes = new("")
	}
	if !suspended && !hasCondition(st, batchv1.JobFailureTarget) && !hasCondition(st, batchv1.JobSuccessCriteriaMet) {
		if st.StartTime == nil || hasCondition(st, batchv1.JobSuspended) {
			st.StartTime = &metav1.Time{Time: now}
		}
		if hasCondition(st, batchv1.JobSuspended) {
			setCondition(st, batchv1.JobSuspended, corev1.ConditionFalse, "JobResumed", "Job resumed", now)
			c.recorder.Event(job, corev1.EventTypeNormal, "Resumed", "Job resumed")
		}
		if reason, msg := failure(job, st, pods, active, now); reason != "" {
			setCondition(st, batchv1.JobFailureTarget, corev1.ConditionTrue, reason, msg, now)
		} else if reason, msg := success(job, st, active); reason != "" {
			setCondition(st, batchv1.JobSuccessCriteriaMet, corev1.ConditionTrue, reason, msg, now)
		}
	}
	var (
		action  string
		created int
		err     error
	)
	switch {
	case hasCondition(st, batchv1.JobFailureTarget):
		action, err = c.finish(ctx, key, job, st, pods, batchv1.JobFailed, now)
		active = nil
	case hasCondition(st, batchv1.JobSuccessCriteriaMet):
		action, err = c.finish(ctx, key, job, st, pods, batchv1.JobComplete, now)
		active = nil
	case suspended:
		if !hasCondition(st, batchv1.JobSuspended) {
			setCondition(st, batchv1.JobSuspended, corev1.ConditionTrue, "JobSuspended", "Job suspended", now)
			c.recorder.Event(job, corev1.EventTypeNormal, "Suspended", "Job suspended")
		}
		action = fmt.Sprintf("suspended: delete %d active pods", len(active))
		err = c.deletePods(ctx, key, job, active)
		active = nil
	default:
		action, active, created, err = c.manage(ctx, key, job, st, pods, now)
	}
	ready := int32(len(filter(active, isReady)))
	terminating := int32(len(filter(pods, isTerminating)))
	st.Active = int32(len(active) + created)
	st.Ready, st.Terminating = &ready, &terminating
	return action, err
}

// failure says why the Job has failed, if it has, in kube's order: a
// failed pod matched a FailJob rule of the podFailurePolicy; more failed
// pods than backoffLimit allows (or, for restartPolicy OnFailure, as many
// container restarts); activeDeadlineSeconds passed since startTime; with
// backoffLimitPerIndex, more failed indexes than maxFailedIndexes, or
// every index done and some failed.
func failure(job *batchv1.Job, st *batchv1.JobStatus, pods, active []*corev1.Pod, now time.Time) (string, string) {
	if msg := failJobMessage(job, pods); msg != "" {
		return batchv1.JobReasonPodFailurePolicy, msg
	}
	limit := int32(6)
	if job.Spec.BackoffLimit != nil {
		limit = *job.Spec.BackoffLimit
	}
	if st.Failed > limit {
		return batchv1.JobReasonBackoffLimitExceeded, msgBackoffLimit
	}
	if job.Spec.Template.Spec.RestartPolicy == corev1.RestartPolicyOnFailure {
		if r := restarts(active); (limit == 0 && r > 0) || (limit > 0 && r >= limit) {
			return batchv1.JobReasonBackoffLimitExceeded, msgBackoffLimit
		}
	}
	if d := job.Spec.ActiveDeadlineSeconds; d != nil && st.StartTime != nil && !now.Before(st.StartTime.Add(time.Duration(*d)*time.Second)) {
		return batchv1.JobReasonDeadlineExceeded, msgDeadline
	}
	if hasBackoffLimitPerIndex(job) && st.FailedIndexes != nil {
		failed := parseIntervals(*st.FailedIndexes, completions(job)).total()
		if m := job.Spec.MaxFailedIndexes; m != nil && failed > int(*m) {
			return batchv1.JobReasonMaxFailedIndexesExceeded, msgMaxFailedIx
		}
		if failed > 0 && failed+int(st.Succeeded) >= completions(job) {
			return batchv1.JobReasonFailedIndexes, msgFailedIx
		}
	}
	return "", ""
}

// success says why the Job has succeeded, if it has: a successPolicy rule
// holds (Indexed Jobs), or enough pods succeeded.
func success(job *batchv1.Job, st *batchv1.JobStatus, active []*corev1.Pod) (string, string) {
	if isIndexed(job) {
		if msg, ok := matchSuccessPolicy(job, parseIntervals(st.CompletedIndexes, completions(job))); ok {
			return batchv1.JobReasonSuccessPolicy, msg
		}
	}
	if succeeded(job, st, active) {
		return batchv1.JobReasonCompletionsReached, msgCompletions
	}
	return "", ""
}

// succeeded: completions pods succeeded; without completions, one did and
// none is left running.
func succeeded(job *batchv1.Job, st *batchv1.JobStatus, active []*corev1.Pod) bool {
	if job.Spec.Completions != nil {
		return st.Succeeded >= *job.Spec.Completions
	}
	return st.Succeeded > 0 && len(active) == 0
}

// finish ends a Job whose FailureTarget or SuccessCriteriaMet is set: the
// active pods are deleted, and once none is left running the final
// condition (Failed or Complete, with the same reason) is added.
func (c *Controller) finish(ctx context.Context, key string, job *batchv1.Job, st *batchv1.JobStatus, pods []*corev1.Pod, final batchv1.JobConditionType, now time.Time) (string, error) {
	active := filter(pods, isActive)
	if len(active) > 0 {
		return fmt.Sprintf("finishing: delete %d active pods", len(active)), c.deletePods(ctx, key, job, newestFirst(active))
	}
	if n := len(filter(pods, isTerminating)); n > 0 {
		return fmt.Sprintf("finishing: wait for %d terminating pods", n), nil
	}
	target := batchv1.JobFailureTarget
	if final == batchv1.JobComplete {
		target = batchv1.JobSuccessCriteriaMet
	}
	cond := condition(st, target)
	setCondition(st, final, corev1.ConditionTrue, cond.Reason, cond.Message, now)
	if final == batchv1.JobComplete {
		st.CompletionTime = &metav1.Time{Time: now}
		c.recorder.Event(job, corev1.EventTypeNormal, "Completed", "Job completed")
	} else {
		c.recorder.Event(job, corev1.EventTypeWarning, cond.Reason, cond.Message)
	}
	return "finished: " + string(final), nil
}

// manage creates or deletes pods so that as many run as parallelism and
// the remaining completions allow (for an Indexed Job: one per pending
// index), waiting out the failure back-off before creating. It returns
// the active pods that stay and how many were created. As in kube, a pass
// either deletes or creates, never both.
func (c *Controller) manage(ctx context.Context, key string, job *batchv1.Job, st *batchv1.JobStatus, pods []*corev1.Pod, now time.Time) (string, []*corev1.Pod, int, error) {
	keep := filter(pods, isActive)
	var del []*corev1.Pod
	if isIndexed(job) {
		del, keep = surplusIndexed(job, keep)
	}
	want := wantActive(job, st, len(keep))
	if extra := len(keep) - want; extra > 0 {
		ordered := newestFirst(keep)
		del, keep = append(del, ordered[:extra]...), ordered[extra:]
	}
	if len(del) > 0 {
		return fmt.Sprintf("deleted %d pods", len(del)), keep, 0, c.deletePods(ctx, key, job, del)
	}
	diff := want - len(keep)
	if diff <= 0 {
		return "none (in sync)", keep, 0, nil
	}
	toCreate, wait := c.podsToCreate(job, st, pods, keep, diff, now)
	if len(toCreate) == 0 {
		if wait > 0 {
			c.driver.EnqueueAfter(key, wait)
			return fmt.Sprintf("back-off: create %d pods in %s", diff, wait), keep, 0, nil
		}
		return "none (no pending index)", keep, 0, nil
	}
	created, err := c.createPods(ctx, key, job, toCreate)
	return fmt.Sprintf("created %d pods", created), keep, created, err
}

// podsToCreate builds up to n new pods, or says how long the failure
// back-off still holds them: for the whole Job, or with
// backoffLimitPerIndex for each index on its own.
func (c *Controller) podsToCreate(job *batchv1.Job, st *batchv1.JobStatus, pods, active []*corev1.Pod, n int, now time.Time) ([]*corev1.Pod, time.Duration) {
	if !hasBackoffLimitPerIndex(job) {
		failures, last := failuresSinceSuccess(pods)
		if wait := backoffRemaining(c.backoff, failures, last, now); wait > 0 {
			return nil, wait
		}
	}
	if !isIndexed(job) {
		out := make([]*corev1.Pod, n)
		for i := range out {
			out[i] = newPod(job)
		}
		return out, 0
	}
	done := parseIntervals(st.CompletedIndexes, completions(job))
	var replaced map[int]*corev1.Pod
	if hasBackoffLimitPerIndex(job) {
		if st.FailedIndexes != nil {
			done = done.merge(parseIntervals(*st.FailedIndexes, completions(job)))
		}
		replaced = lastFailedByIndex(job, pods)
	}
	var out []*corev1.Pod
	var minWait time.Duration
	for _, ix := range pendingIndexes(job, active, done, n) {
		if wait := indexBackoff(c.backoff, replaced[ix], now); replaced != nil && wait > 0 {
			if minWait == 0 || wait < minWait {
				minWait = wait
			}
			continue
		}
		p := newPod(job)
		withIndex(p, job, ix)
		if replaced != nil {
			withFailureCounts(p, job, replaced[ix])
		}
		out = append(out, p)
	}
	return out, minWait
}

// wantActive is how many pods should run: parallelism, but no more than
// the completions still missing; without completions, none new once one
// pod succeeded.
func wantActive(job *batchv1.Job, st *batchv1.JobStatus, active int) int {
	parallelism := 1
	if job.Spec.Parallelism != nil {
		parallelism = int(*job.Spec.Parallelism)
	}
	if job.Spec.Completions == nil {
		if st.Succeeded > 0 {
			return min(active, parallelism)
		}
		return parallelism
	}
	return max(0, min(parallelism, int(*job.Spec.Completions-st.Succeeded)))
}

// afterFinished tidies a finished Job: pods still running are deleted,
// and the Job itself goes ttlSecondsAfterFinished after it finished.
func (c *Controller) afterFinished(ctx context.Context, key string, job *batchv1.Job, pods []*corev1.Pod, synced bool) error {
	if active := filter(pods, isActive); len(active) > 0 && synced {
		if err := c.deletePods(ctx, key, job, active); err != nil {
			return err
		}
	}
	if job.Spec.TTLSecondsAfterFinished == nil {
		return nil
	}
	var at time.Time
	for _, t := range []batchv1.JobConditionType{batchv1.JobComplete, batchv1.JobFailed} {
		if cond := condition(&job.Status, t); cond.Status == corev1.ConditionTrue {
			at = cond.LastTransitionTime.Time
		}
	}
	expire := at.Add(time.Duration(*job.Spec.TTLSecondsAfterFinished) * time.Second)
	if wait := expire.Sub(c.clock.Now()); wait > 0 {
		c.driver.EnqueueAfter(key, wait)
		return nil
	}
	pass.Log(ctx, c.log, "Job", job, "reconciled job", "job", key, "observed", "finished", "action", "delete: ttlSecondsAfterFinished passed")
	foreground := metav1.DeletePropagationForeground
	err := c.client.BatchV1().Jobs(job.Namespace).Delete(ctx, job.Name, metav1.DeleteOptions{
		PropagationPolicy: &foreground, Preconditions: &metav1.Preconditions{UID: &job.UID},
	})
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		return nil
	}
	return err
}

// releaseAll removes the tracking finalizer from every pod of a Job being
// deleted, so the garbage collector can delete them.
func (c *Controller) releaseAll(ctx context.Context, key string, job *batchv1.Job) error {
	owned, err := c.podIndexer.ByIndex(owner.Index, string(job.UID))
	if err != nil {
		return err
	}
	for _, o := range owned {
		if p := o.(*corev1.Pod); hasTrackingFinalizer(p) {
			if err := c.removeFinalizer(ctx, p); err != nil {
				return err
			}
		}
	}
	pass.Log(ctx, c.log, "Job", job, "reconciled job", "job", key, "observed", "being deleted", "action", "release its pods")
	return nil
}

func filter(pods []*corev1.Pod, keep func(*corev1.Pod) bool) []*corev1.Pod {
	var out []*corev1.Pod
	for _, p := range pods {
		if keep(p) {
			out = append(out, p)
		}
	}
	return out
}
