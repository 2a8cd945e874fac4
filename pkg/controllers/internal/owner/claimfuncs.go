package owner

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
)

// PodPatcher is Claim's patch for pods: a strategic merge patch through
// client, where a pod that is already gone is no error.
func PodPatcher(client kubernetes.Interface) func(ctx context.Context, pod *corev1.Pod, patch []byte) error {
	return func(ctx context.Context, pod *corev1.Pod, patch []byte) error {
		_, err := client.CoreV1().Pods(pod.Namespace).Patch(ctx, pod.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		return err
	}
}

// StillLive is Claim's stillLive for own, read fresh from the server with
// get (a typed client's Get): own is live while the server has an object
// of its name with its UID and no deletionTimestamp.
func StillLive[T metav1.Object](own metav1.Object, get func(ctx context.Context, name string, opts metav1.GetOptions) (T, error)) func(ctx context.Context) (bool, error) {
	return func(ctx context.Context) (bool, error) {
		fresh, err := get(ctx, own.GetName(), metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		return fresh.GetUID() == own.GetUID() && fresh.GetDeletionTimestamp() == nil, nil
	}
}
