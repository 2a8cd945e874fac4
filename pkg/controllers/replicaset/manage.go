package replicaset

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/miniapi/miniapi/pkg/controllers/internal/owner"
)

// manageReplicas creates or deletes the difference between spec.replicas
// and the active pods, at most c.burst at a time, and says what it did.
func (c *Controller) manageReplicas(ctx context.Context, key string, rs *appsv1.ReplicaSet, active []*corev1.Pod) (string, error) {
	diff := len(active) - int(replicasOf(rs))
	switch {
	case diff < 0:
		n := min(-diff, c.burst)
		// Expect first: the informer may deliver a created pod before
		// Create even returns.
		c.expect.ExpectCreations(key, n)
		created, err := slowStartBatch(n, func() error { return c.createPod(ctx, rs) })
		for range n - created {
			c.expect.CreationObserved(key) // will never be seen
		}
		return fmt.Sprintf("created %d pods", created), err
	case diff > 0:
		victims := podsToDelete(active, min(diff, c.burst))
		keys := make([]string, len(victims))
		for i, p := range victims {
			keys[i] = p.Namespace + "/" + p.Name
		}
		c.expect.ExpectDeletions(key, keys)
		deleted, err := c.deletePods(ctx, key, rs, victims)
		return fmt.Sprintf("deleted %d pods", deleted), err
	}
	return "none (in sync)", nil
}

// slowStartBatch calls fn n times in batches of 1, 2, 4, … running each
// batch concurrently, and stops after the first batch with an error, so a
// template the server rejects costs one request, not n. It returns how
// many calls succeeded.
func slowStartBatch(n int, fn func() error) (int, error) {
	done := 0
	for batch := 1; done < n; batch *= 2 {
		size := min(batch, n-done)
		var ok atomic.Int64
		errs := make([]error, size)
		var wg sync.WaitGroup
		for i := range size {
			wg.Go(func() {
				if errs[i] = fn(); errs[i] == nil {
					ok.Add(1)
				}
			})
		}
		wg.Wait()
		done += int(ok.Load())
		if err := errors.Join(errs...); err != nil {
			return done, err
		}
	}
	return done, nil
}

// newPod is the pod rs's template describes, named "<rs>-<random>" by
// the server through generateName, and controlled by rs.
func newPod(rs *appsv1.ReplicaSet) *corev1.Pod {
	t := rs.Spec.Template.DeepCopy()
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			GenerateName:    rs.Name + "-",
			Namespace:       rs.Namespace,
			Labels:          t.Labels,
			Annotations:     t.Annotations,
			Finalizers:      t.Finalizers,
			OwnerReferences: []metav1.OwnerReference{owner.ControllerRef(rs, rsKind)},
		},
		Spec: t.Spec,
	}
}

func (c *Controller) createPod(ctx context.Context, rs *appsv1.ReplicaSet) error {
	pod, err := c.client.CoreV1().Pods(rs.Namespace).Create(ctx, newPod(rs), metav1.CreateOptions{})
	if err != nil {
		c.recorder.Eventf(rs, corev1.EventTypeWarning, "FailedCreate", "Error creating: %v", err)
		return err
	}
	c.recorder.Eventf(rs, corev1.EventTypeNormal, "SuccessfulCreate", "Created pod: %s", pod.Name)
	return nil
}

// deletePods deletes victims concurrently; a pod already gone counts as
// deleted. It returns how many deletions succeeded.
func (c *Controller) deletePods(ctx context.Context, key string, rs *appsv1.ReplicaSet, victims []*corev1.Pod) (int, error) {
	errs := make([]error, len(victims))
	var ok atomic.Int64
	var wg sync.WaitGroup
	for i, pod := range victims {
		wg.Go(func() {
			err := c.client.CoreV1().Pods(pod.Namespace).Delete(ctx, pod.Name, metav1.DeleteOptions{})
			switch {
			case err == nil:
				ok.Add(1)
				c.recorder.Eventf(rs, corev1.EventTypeNormal, "SuccessfulDelete", "Deleted pod: %s", pod.Name)
			case apierrors.IsNotFound(err):
				ok.Add(1)
			default:
				c.expect.DeletionObserved(key, pod.Namespace+"/"+pod.Name)
				c.recorder.Eventf(rs, corev1.EventTypeWarning, "FailedDelete", "Error deleting: %v", err)
				errs[i] = err
			}
		})
	}
	wg.Wait()
	return int(ok.Load()), errors.Join(errs...)
}
