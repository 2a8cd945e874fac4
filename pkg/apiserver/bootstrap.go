package apiserver

import (
	"context"
	"errors"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/miniapi/miniapi/pkg/storage"
)

// SystemNamespaces exist from the first start, as on a kubeadm cluster.
var SystemNamespaces = []string{"default", "kube-node-lease", "kube-public", "kube-system"}

// Bootstrap creates the system namespaces that are missing, through the
// same create path as a client's request. The creates run concurrently so
// that they share one commit on a new store.
func (s *Server) Bootstrap(ctx context.Context) error {
	errs := make([]error, len(SystemNamespaces))
	var wg sync.WaitGroup
	for i, name := range SystemNamespaces {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = s.ensureNamespace(ctx, name)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// ensureNamespace creates an active namespace unless it exists.
func (s *Server) ensureNamespace(ctx context.Context, name string) error {
	_, err := s.store.Get(ctx, objectKey(namespaces, "", name))
	if !errors.Is(err, storage.ErrNotFound) {
		return err
	}
	ns := &corev1.Namespace{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{corev1.LabelMetadataName: name}},
		Spec:       corev1.NamespaceSpec{Finalizers: []corev1.FinalizerName{corev1.FinalizerKubernetes}},
		Status:     corev1.NamespaceStatus{Phase: corev1.NamespaceActive},
	}
	ns.SetGroupVersionKind(namespaces.GroupVersionKind())
	if _, err := s.createObject(ctx, request{res: namespaces}, ns, false); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	return nil
}
