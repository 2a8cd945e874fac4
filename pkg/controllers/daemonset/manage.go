package daemonset

import (
	"context"
	"errors"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// manage makes the missing pods and deletes the extra ones; when there
// is nothing of that kind to do, it takes the next rolling-update step.
func (c *Controller) manage(ctx context.Context, key string, ds *appsv1.DaemonSet, plan *nodePlan, hash string) (string, error) {
	var create []string
	del := append([]*corev1.Pod(nil), plan.doomed...)
	surge := maxSurge(ds, desiredNodes(plan))
	for _, n := range plan.nodes {
		pods := plan.pods[n.Name]
		switch {
		case !n.run:
			del = append(del, pods...)
		case len(pods) == 0 && !plan.terminating[n.Name]:
			create = append(create, n.Name)
		case len(pods) > 1:
			del = append(del, surplusPods(ds, pods, hash, surge > 0)...)
		}
	}
	if len(create) == 0 && len(del) == 0 && ds.Spec.UpdateStrategy.Type == appsv1.RollingUpdateDaemonSetStrategyType {
		if surge > 0 {
			create, del = rollingSurge(ds, plan, hash, surge, c.clock.Now())
		} else {
			del = rollingDeletes(ds, plan, hash, c.clock.Now())
		}
		if len(create) == 0 && len(del) == 0 {
			return "none", nil
		}
	}
	err := errors.Join(c.createPods(ctx, key, ds, create, hash), c.deletePods(ctx, key, ds, del))
	return fmt.Sprintf("create %d pods, delete %d", len(create), len(del)), err
}

// rollingDeletes picks the old pods to delete: every old pod that is not
// available anyway, then available ones while fewer than maxUnavailable
// nodes are without an available pod.
func rollingDeletes(ds *appsv1.DaemonSet, plan *nodePlan, hash string, now time.Time) []*corev1.Pod {
	desired, unavailable := 0, 0
	var oldAvailable, del []*corev1.Pod
	for _, n := range plan.nodes {
		if !n.run {
			continue
		}
		desired++
		pods := plan.pods[n.Name]
		if len(pods) == 0 {
			unavailable++
			continue
		}
		p := pods[0]
		available := isAvailable(p, ds.Spec.MinReadySeconds, now)
		if !available {
			unavailable++
		}
		if isUpdated(p, ds, hash) {
			continue
		}
		if available {
			oldAvailable = append(oldAvailable, p)
		} else {
			del = append(del, p)
		}
	}
	budget := maxUnavailable(ds, desired) - unavailable
	for i := 0; i < len(oldAvailable) && i < budget; i++ {
		del = append(del, oldAvailable[i])
	}
	return del
}

// maxUnavailable scales rollingUpdate.maxUnavailable against desired
// (percentages round up), at least 1 as kube does when maxSurge is 0.
func maxUnavailable(ds *appsv1.DaemonSet, desired int) int {
	v := intstr.FromInt32(1)
	if ru := ds.Spec.UpdateStrategy.RollingUpdate; ru != nil && ru.MaxUnavailable != nil {
		v = *ru.MaxUnavailable
	}
	n, err := intstr.GetScaledValueFromIntOrPercent(&v, desired, true)
	if err != nil || n < 1 {
		return 1
	}
	return n
}

func (c *Controller) createPods(ctx context.Context, key string, ds *appsv1.DaemonSet, nodes []string, hash string) error {
	c.expect.ExpectCreations(key, len(nodes))
	var errs []error
	for _, node := range nodes {
		pod, err := c.client.CoreV1().Pods(ds.Namespace).Create(ctx, newPod(ds, node, hash), metav1.CreateOptions{})
		if err != nil {
			c.expect.CreationObserved(key) // it will never arrive
			c.recorder.Eventf(ds, corev1.EventTypeWarning, "FailedCreate", "Error creating: %v", err)
			errs = append(errs, err)
			continue
		}
		c.recorder.Eventf(ds, corev1.EventTypeNormal, "SuccessfulCreate", "Created pod: %s", pod.Name)
	}
	return errors.Join(errs...)
}

func (c *Controller) deletePods(ctx context.Context, key string, ds *appsv1.DaemonSet, pods []*corev1.Pod) error {
	keys := make([]string, 0, len(pods))
	for _, p := range pods {
		keys = append(keys, p.Namespace+"/"+p.Name)
	}
	c.expect.ExpectDeletions(key, keys)
	var errs []error
	for _, p := range pods {
		err := c.client.CoreV1().Pods(p.Namespace).Delete(ctx, p.Name, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			c.expect.DeletionObserved(key, p.Namespace+"/"+p.Name)
			c.recorder.Eventf(ds, corev1.EventTypeWarning, "FailedDelete", "Error deleting: %v", err)
			errs = append(errs, err)
			continue
		}
		if apierrors.IsNotFound(err) {
			c.expect.DeletionObserved(key, p.Namespace+"/"+p.Name)
			continue
		}
		c.recorder.Eventf(ds, corev1.EventTypeNormal, "SuccessfulDelete", "Deleted pod: %s", p.Name)
	}
	return errors.Join(errs...)
}

func minReadyDelay(ds *appsv1.DaemonSet) time.Duration {
	return time.Duration(ds.Spec.MinReadySeconds) * time.Second
}
