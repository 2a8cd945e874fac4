package statefulset

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// createPod creates the claims of ordinal n, then its pod.
func (c *Controller) createPod(ctx context.Context, s *appsv1.StatefulSet, pod *corev1.Pod, n int) error {
	if err := c.createClaims(ctx, s, pod, n); err != nil {
		c.recorder.Eventf(s, corev1.EventTypeWarning, "FailedCreate", "Create Pod %s in StatefulSet %s failed error: %v", pod.Name, s.Name, err)
		return err
	}
	_, err := c.client.CoreV1().Pods(s.Namespace).Create(ctx, pod, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return nil // our cache is behind our own write
	}
	if err != nil {
		c.recorder.Eventf(s, corev1.EventTypeWarning, "FailedCreate", "Create Pod %s in StatefulSet %s failed error: %v", pod.Name, s.Name, err)
		return err
	}
	c.recorder.Eventf(s, corev1.EventTypeNormal, "SuccessfulCreate", "Create Pod %s in StatefulSet %s successful", pod.Name, s.Name)
	return nil
}

// deletePod deletes p, only if it is still the pod the cache showed.
func (c *Controller) deletePod(ctx context.Context, s *appsv1.StatefulSet, p *corev1.Pod) error {
	uid := p.UID
	err := c.client.CoreV1().Pods(p.Namespace).Delete(ctx, p.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		return nil // gone or replaced already: the next reconcile sees it
	}
	if err != nil {
		c.recorder.Eventf(s, corev1.EventTypeWarning, "FailedDelete", "Delete Pod %s in StatefulSet %s failed error: %v", p.Name, s.Name, err)
		return err
	}
	c.recorder.Eventf(s, corev1.EventTypeNormal, "SuccessfulDelete", "Delete Pod %s in StatefulSet %s successful", p.Name, s.Name)
	return nil
}
