package cronjob

import (
	"context"
	"fmt"
	"sort"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"

	"github.com/miniapi/miniapi/pkg/controllers/internal/owner"
	"github.com/miniapi/miniapi/pkg/controllers/internal/pass"
)

// Reconcile brings the CronJob named by key ("namespace/name") up to date
// with its schedule.
//
// It is level-based: from the CronJob, its Jobs and the clock it works out
// which Jobs are active, whether a scheduled run is due and not yet
// started (the Job's name, made from the scheduled time, says whether it
// was), and which finished Jobs are beyond the history limits. It starts
// at most one Job, writes the status, and asks to be called again just
// after the next scheduled time.
func (c *Controller) Reconcile(ctx context.Context, key string) error {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil
	}
	cj, err := c.cronJobs.CronJobs(ns).Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	jobs, err := c.ownedJobs(cj)
	if err != nil {
		return err
	}
	now := c.clock.Now()
	next := cj.DeepCopy()
	if err := c.syncActive(ctx, next, jobs); err != nil {
		return err
	}
	action, runErr := "none", error(nil)
	if cj.DeletionTimestamp == nil {
		action, runErr = c.run(ctx, key, next, now)
		if err := c.cleanup(ctx, next, jobs); err != nil {
			return err
		}
	}
	if !apiequality.Semantic.DeepEqual(cj.Status, next.Status) {
		if _, err := c.client.BatchV1().CronJobs(ns).UpdateStatus(ctx, next, metav1.UpdateOptions{}); err != nil {
			return fmt.Errorf("writing the status of cronjob %s: %w", key, err)
		}
	}
	pass.Log(ctx, c.log, "CronJob", cj, "reconciled cronjob", "cronjob", key, "active", len(next.Status.Active), "action", action)
	return runErr
}

// ownedJobs lists the Jobs the CronJob controls.
func (c *Controller) ownedJobs(cj *batchv1.CronJob) ([]*batchv1.Job, error) {
	objs, err := c.jobIndexer.ByIndex(owner.Index, string(cj.UID))
	if err != nil {
		return nil, err
	}
	out := make([]*batchv1.Job, 0, len(objs))
	for _, o := range objs {
		out = append(out, o.(*batchv1.Job))
	}
	return out, nil
}

// syncActive drops finished Jobs and Jobs that are gone from
// status.active and notes the last success. A running Job the CronJob
// controls but did not start (kubectl create job --from=cronjob/…) is
// reported, not adopted, as in kube.
func (c *Controller) syncActive(ctx context.Context, cj *batchv1.CronJob, jobs []*batchv1.Job) error {
	children := map[types.UID]bool{}
	for _, j := range jobs {
		children[j.UID] = true
		done, cond := finishedCondition(j)
		listed := inActive(cj, j.UID)
		switch {
		case !listed && !done:
			// Ours, if the cache is only behind on the status we wrote.
			fresh, err := c.client.BatchV1().CronJobs(cj.Namespace).Get(ctx, cj.Name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			if !inActive(fresh, j.UID) {
				c.recorder.Eventf(cj, corev1.EventTypeWarning, "UnexpectedJob", "Saw a job that the controller did not create or forgot: %s", j.Name)
			}
		case listed && done:
			removeActive(cj, j.UID)
			c.recorder.Eventf(cj, corev1.EventTypeNormal, "SawCompletedJob", "Saw completed job: %s, condition: %v", j.Name, cond)
		case done && cond == batchv1.JobComplete && j.Status.CompletionTime != nil:
			if t := cj.Status.LastSuccessfulTime; t == nil || j.Status.CompletionTime.After(t.Time) {
				cj.Status.LastSuccessfulTime = j.Status.CompletionTime.DeepCopy()
			}
		}
	}
	for _, ref := range append([]corev1.ObjectReference(nil), cj.Status.Active...) {
		if children[ref.UID] {
			continue
		}
		// The cache may be behind: ask the server before forgetting a Job.
		_, err := c.client.BatchV1().Jobs(ref.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			c.recorder.Eventf(cj, corev1.EventTypeNormal, "MissingJob", "Active job went missing: %v", ref.Name)
			removeActive(cj, ref.UID)
		case err != nil:
			return err
		}
	}
	return nil
}

// run starts the Job for the most recent due run, if there is one and
// the CronJob allows it, and queues the next look.
func (c *Controller) run(ctx context.Context, key string, cj *batchv1.CronJob, now time.Time) (string, error) {
	if tz := cj.Spec.TimeZone; tz != nil {
		if _, err := time.LoadLocation(*tz); err != nil {
			c.recorder.Eventf(cj, corev1.EventTypeWarning, "UnknownTimeZone", "invalid timeZone: %q: %s", *tz, err)
			return "none (invalid time zone)", nil
		}
	}
	if cj.Spec.Suspend != nil && *cj.Spec.Suspend {
		return "none (suspended)", nil
	}
	sched, err := parseSchedule(cj)
	if err != nil {
		c.recorder.Eventf(cj, corev1.EventTypeWarning, "UnparseableSchedule", "unparseable schedule: %q : %s", cj.Spec.Schedule, err)
		return "none (unparseable schedule)", nil
	}
	if wait, ok := untilNext(sched, now); ok {
		defer c.driver.EnqueueAfter(key, wait)
	}
	scheduled, missed, err := mostRecentRun(cj, sched, now)
	if err != nil {
		c.recorder.Eventf(cj, corev1.EventTypeWarning, "InvalidSchedule", "invalid schedule: %s : %s", cj.Spec.Schedule, err)
		return "none (invalid schedule)", nil
	}
	if scheduled == nil {
		return "none (no run due)", nil
	}
	if missed > tooManyMissed {
		c.recorder.Eventf(cj, corev1.EventTypeWarning, "TooManyMissedTimes", "too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew")
	}
	if d := cj.Spec.StartingDeadlineSeconds; d != nil && scheduled.Add(time.Duration(*d)*time.Second).Before(now) {
		c.recorder.Eventf(cj, corev1.EventTypeWarning, "MissSchedule", "Missed scheduled time to start a job: %s", scheduled.UTC().Format(time.RFC1123Z))
		return "none (missed the starting deadline)", nil
	}
	name := jobName(cj, *scheduled)
	if activeByName(cj, name) || (cj.Status.LastScheduleTime != nil && cj.Status.LastScheduleTime.Time.Equal(*scheduled)) {
		return "none (run already started)", nil
	}
	switch cj.Spec.ConcurrencyPolicy {
	case batchv1.ForbidConcurrent:
		if len(cj.Status.Active) > 0 {
			c.recorder.Eventf(cj, corev1.EventTypeNormal, "JobAlreadyActive", "Not starting job because prior execution is running and concurrency policy is Forbid")
			return "none (Forbid: a job is active)", nil
		}
	case batchv1.ReplaceConcurrent:
		for _, ref := range append([]corev1.ObjectReference(nil), cj.Status.Active...) {
			if err := c.deleteJob(ctx, cj, ref.Namespace, ref.Name, ref.UID); err != nil {
				return "replace active jobs", err
			}
		}
	}
	return c.startJob(ctx, cj, *scheduled, name)
}

// startJob creates the Job for the scheduled time and records it in the
// status. A Job of that name that the CronJob controls already is taken
// as started (the name is the lock).
func (c *Controller) startJob(ctx context.Context, cj *batchv1.CronJob, scheduled time.Time, name string) (string, error) {
	job, err := jobFromTemplate(cj, scheduled, name)
	if err != nil {
		return "none", err
	}
	created, err := c.client.BatchV1().Jobs(cj.Namespace).Create(ctx, job, metav1.CreateOptions{})
	switch {
	case apierrors.IsAlreadyExists(err):
		existing, getErr := c.client.BatchV1().Jobs(cj.Namespace).Get(ctx, name, metav1.GetOptions{})
		if getErr != nil {
			return "none", getErr
		}
		if !owner.IsControlledBy(existing, cj.UID) || inActive(cj, existing.UID) {
			return "none (job exists)", nil
		}
		created = existing
	case err != nil:
		c.recorder.Eventf(cj, corev1.EventTypeWarning, "FailedCreate", "Error creating job: %v", err)
		return "none", fmt.Errorf("creating job %s/%s: %w", cj.Namespace, name, err)
	default:
		c.recorder.Eventf(cj, corev1.EventTypeNormal, "SuccessfulCreate", "Created job %v", created.Name)
	}
	cj.Status.Active = append(cj.Status.Active, jobRef(created))
	cj.Status.LastScheduleTime = &metav1.Time{Time: scheduled}
	return "created job " + created.Name, nil
}

// cleanup deletes the oldest finished Jobs beyond the history limits.
func (c *Controller) cleanup(ctx context.Context, cj *batchv1.CronJob, jobs []*batchv1.Job) error {
	var complete, failed []*batchv1.Job
	for _, j := range jobs {
		switch _, cond := finishedCondition(j); cond {
		case batchv1.JobComplete:
			complete = append(complete, j)
		case batchv1.JobFailed:
			failed = append(failed, j)
		}
	}
	for _, group := range []struct {
		jobs  []*batchv1.Job
		limit *int32
	}{{complete, cj.Spec.SuccessfulJobsHistoryLimit}, {failed, cj.Spec.FailedJobsHistoryLimit}} {
		if group.limit == nil || len(group.jobs) <= int(*group.limit) {
			continue
		}
		sort.Slice(group.jobs, func(i, k int) bool { return startedBefore(group.jobs[i], group.jobs[k]) })
		for _, j := range group.jobs[:len(group.jobs)-int(*group.limit)] {
			if err := c.deleteJob(ctx, cj, j.Namespace, j.Name, j.UID); err != nil {
				return err
			}
		}
	}
	return nil
}

// deleteJob deletes a Job of the CronJob in the background (its pods
// follow through the garbage collector) and forgets it in status.active.
func (c *Controller) deleteJob(ctx context.Context, cj *batchv1.CronJob, ns, name string, uid types.UID) error {
	background := metav1.DeletePropagationBackground
	err := c.client.BatchV1().Jobs(ns).Delete(ctx, name, metav1.DeleteOptions{
		PropagationPolicy: &background, Preconditions: &metav1.Preconditions{UID: &uid},
	})
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		c.recorder.Eventf(cj, corev1.EventTypeWarning, "FailedDelete", "Deleted job: %v", err)
		return fmt.Errorf("deleting job %s/%s: %w", ns, name, err)
	}
	removeActive(cj, uid)
	if err == nil {
		c.recorder.Eventf(cj, corev1.EventTypeNormal, "SuccessfulDelete", "Deleted job %v", name)
	}
	return nil
}

// startedBefore orders Jobs by start time, those not started last, then
// by name.
func startedBefore(a, b *batchv1.Job) bool {
	sa, sb := a.Status.StartTime, b.Status.StartTime
	switch {
	case sa == nil && sb != nil:
		return false
	case sa != nil && sb == nil:
		return true
	case sa != nil && !sa.Equal(sb):
		return sa.Before(sb)
	}
	return a.Name < b.Name
}
