package job

import (
	"context"
	"fmt"
	"sort"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"

	"github.com/miniapi/miniapi/pkg/controllers/internal/owner"
)

func hasTrackingFinalizer(p *corev1.Pod) bool {
	for _, f := range p.Finalizers {
		if f == TrackingFinalizer {
			return true
		}
	}
	return false
}

// isSucceeded and isFailed say how a pod ended. A pod being deleted
// before it succeeded counts as failed, as in kube (with the default
// podReplacementPolicy): it will never finish by itself.
func isSucceeded(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodSucceeded }

func isFailed(p *corev1.Pod) bool {
	return p.Status.Phase == corev1.PodFailed || (p.DeletionTimestamp != nil && p.Status.Phase != corev1.PodSucceeded)
}

func isFinished(p *corev1.Pod) bool { return isSucceeded(p) || isFailed(p) }

// isActive: running or about to, and not being deleted.
func isActive(p *corev1.Pod) bool {
	return p.DeletionTimestamp == nil && p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed
}

// isTerminating: being deleted, containers not yet stopped.
func isTerminating(p *corev1.Pod) bool {
	return p.DeletionTimestamp != nil && p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed
}

func isReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// finishedAt is when a pod ended: its last container exit, else when it
// was deleted, else its creation (a pod failed before it ran).
func finishedAt(p *corev1.Pod) time.Time {
	var t time.Time
	for _, cs := range p.Status.ContainerStatuses {
		if term := cs.State.Terminated; term != nil && term.FinishedAt.After(t) {
			t = term.FinishedAt.Time
		}
	}
	if t.IsZero() && p.DeletionTimestamp != nil {
		t = p.DeletionTimestamp.Time
	}
	if t.IsZero() {
		t = p.CreationTimestamp.Time
	}
	return t
}

// restarts is the sum of the container restarts of pods, which a
// restartPolicy OnFailure Job counts against its backoffLimit.
func restarts(pods []*corev1.Pod) int32 {
	var n int32
	for _, p := range pods {
		for _, cs := range p.Status.InitContainerStatuses {
			n += cs.RestartCount
		}
		for _, cs := range p.Status.ContainerStatuses {
			n += cs.RestartCount
		}
	}
	return n
}

// failuresSinceSuccess counts the failed pods that ended after the last
// successful one, and returns when the latest of them ended: kube's
// back-off record, read from the pods instead of kept in memory.
func failuresSinceSuccess(pods []*corev1.Pod) (int, time.Time) {
	var lastSuccess, lastFailure time.Time
	for _, p := range pods {
		if isSucceeded(p) && finishedAt(p).After(lastSuccess) {
			lastSuccess = finishedAt(p)
		}
	}
	n := 0
	for _, p := range pods {
		if !isFailed(p) {
			continue
		}
		if t := finishedAt(p); t.After(lastSuccess) {
			n++
			if t.After(lastFailure) {
				lastFailure = t
			}
		}
	}
	return n, lastFailure
}

// backoffRemaining is how long the next pod must wait after n consecutive
// failures, the last at last: base doubled per failure, capped.
func backoffRemaining(base time.Duration, n int, last, now time.Time) time.Duration {
	if n == 0 {
		return 0
	}
	d := base
	for i := 1; i < n && d < maxPodFailureBackoff; i++ {
		d *= 2
	}
	d = min(d, maxPodFailureBackoff)
	return max(0, last.Add(d).Sub(now))
}

// claimPods returns the pods the Job controls, adopting matching orphans
// and releasing pods that no longer match, as kube's job controller does.
func (c *Controller) claimPods(ctx context.Context, job *batchv1.Job) ([]*corev1.Pod, error) {
	sel, err := metav1.LabelSelectorAsSelector(job.Spec.Selector)
	if err != nil {
		return nil, fmt.Errorf("job %s/%s: invalid selector: %w", job.Namespace, job.Name, err)
	}
	return owner.Claim(ctx, c.log, c.podIndexer, job, jobKind, sel, owner.PodPatcher(c.client),
		owner.StillLive(job, c.client.BatchV1().Jobs(job.Namespace).Get))
}

// newPod is the pod the Job's template describes, named "<job>-<random>"
// by the server, controlled by the Job and carrying the tracking finalizer.
func newPod(job *batchv1.Job) *corev1.Pod {
	t := job.Spec.Template.DeepCopy()
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			GenerateName:    job.Name + "-",
			Namespace:       job.Namespace,
			Labels:          t.Labels,
			Annotations:     t.Annotations,
			Finalizers:      []string{TrackingFinalizer},
			OwnerReferences: []metav1.OwnerReference{owner.ControllerRef(job, jobKind)},
		},
		Spec: t.Spec,
	}
}

// createPods creates pods, recording SuccessfulCreate for each. It
// returns how many were created.
func (c *Controller) createPods(ctx context.Context, key string, job *batchv1.Job, pods []*corev1.Pod) (int, error) {
	n := len(pods)
	c.expect.ExpectCreations(key, n)
	created := 0
	for i, pod := range pods {
		p, err := c.client.CoreV1().Pods(job.Namespace).Create(ctx, pod, metav1.CreateOptions{})
		if err != nil {
			for range n - i {
				c.expect.CreationObserved(key) // will never be seen
			}
			c.recorder.Eventf(job, corev1.EventTypeWarning, "FailedCreate", "Error creating: %v", err)
			return created, fmt.Errorf("creating a pod for job %s: %w", key, err)
		}
		created++
		c.recorder.Eventf(job, corev1.EventTypeNormal, "SuccessfulCreate", "Created pod: %s", p.Name)
	}
	return created, nil
}

// deletePods deletes pods (newest first is the caller's choice),
// recording SuccessfulDelete for each.
func (c *Controller) deletePods(ctx context.Context, key string, job *batchv1.Job, pods []*corev1.Pod) error {
	keys := make([]string, len(pods))
	for i, p := range pods {
		keys[i] = p.Namespace + "/" + p.Name
	}
	c.expect.ExpectDeletions(key, keys)
	for _, p := range pods {
		err := c.client.CoreV1().Pods(p.Namespace).Delete(ctx, p.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &p.UID}})
		if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
			c.expect.DeletionObserved(key, p.Namespace+"/"+p.Name)
			c.recorder.Eventf(job, corev1.EventTypeWarning, "FailedDelete", "Error deleting: %v", err)
			return fmt.Errorf("deleting pod %s of job %s: %w", p.Name, key, err)
		}
		if err != nil {
			c.expect.DeletionObserved(key, p.Namespace+"/"+p.Name)
			continue
		}
		c.recorder.Eventf(job, corev1.EventTypeNormal, "SuccessfulDelete", "Deleted pod: %s", p.Name)
	}
	return nil
}

// removeFinalizer drops the tracking finalizer from pod, keyed by its uid
// so that a new pod of the same name is never touched.
func (c *Controller) removeFinalizer(ctx context.Context, pod *corev1.Pod) error {
	patch := fmt.Appendf(nil, `{"metadata":{"$deleteFromPrimitiveList/finalizers":[%q],"uid":%q}}`, TrackingFinalizer, pod.UID)
	_, err := c.client.CoreV1().Pods(pod.Namespace).Patch(ctx, pod.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("removing the tracking finalizer of %s/%s: %w", pod.Namespace, pod.Name, err)
	}
	return nil
}

// releaseOrphan removes the tracking finalizer from a pod whose Job is
// gone (deleted without its pods, or replaced), so the pod can go.
func (c *Controller) releaseOrphan(ctx context.Context, podKey string) error {
	ns, name, err := cache.SplitMetaNamespaceKey(podKey)
	if err != nil {
		return nil
	}
	pod, err := c.pods.Pods(ns).Get(name)
	if apierrors.IsNotFound(err) || (err == nil && !hasTrackingFinalizer(pod)) {
		return nil
	}
	if err != nil {
		return err
	}
	if ref := metav1.GetControllerOf(pod); ref != nil && ref.Kind == jobKind.Kind {
		j, err := c.client.BatchV1().Jobs(ns).Get(ctx, ref.Name, metav1.GetOptions{})
		if err == nil && j.UID == ref.UID {
			return nil // the cache was behind: the Job exists and counts the pod
		}
		if err != nil && !apierrors.IsNotFound(err) {
			return err
		}
	}
	c.log.Info("reconcile", "pod", podKey, "observed", "tracking finalizer, no job", "action", "remove the finalizer")
	return c.removeFinalizer(ctx, pod)
}

// newestFirst orders pods for deletion: not ready before ready, then the
// youngest first.
func newestFirst(pods []*corev1.Pod) []*corev1.Pod {
	out := append([]*corev1.Pod(nil), pods...)
	sort.SliceStable(out, func(i, j int) bool {
		if ri, rj := isReady(out[i]), isReady(out[j]); ri != rj {
			return !ri
		}
		return out[j].CreationTimestamp.Before(&out[i].CreationTimestamp)
	})
	return out
}
