package registry

// How objects go away: at once when nothing keeps them, or marked with a
// deletionTimestamp while finalizers (or a pod's grace period, or a
// namespace's spec.finalizers) keep them.

import (
	"errors"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// DeleteWhenUnfinalized is the delete rule of most kinds: an object without
// finalizers is deleted at once; one with finalizers gets a
// deletionTimestamp (grace period 0) and stays until the last is removed.
type DeleteWhenUnfinalized struct{}

// BeginDelete marks an object that has finalizers.
func (DeleteWhenUnfinalized) BeginDelete(obj runtime.Object, _ *metav1.DeleteOptions, now time.Time) (changed, keep bool, err error) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return false, false, err
	}
	if len(m.GetFinalizers()) == 0 {
		return false, false, nil
	}
	return markDeleted(m, now), true, nil
}

// Released: no finalizer is left.
func (DeleteWhenUnfinalized) Released(obj runtime.Object) bool {
	m, err := meta.Accessor(obj)
	return err == nil && len(m.GetFinalizers()) == 0
}

// markDeleted sets deletionTimestamp (grace period 0) unless it is set,
// and reports whether it changed m.
func markDeleted(m metav1.Object, now time.Time) bool {
	if m.GetDeletionTimestamp() != nil {
		return false
	}
	t := metav1.NewTime(now)
	zero := int64(0)
	m.SetDeletionTimestamp(&t)
	m.SetDeletionGracePeriodSeconds(&zero)
	return true
}

// podDelete gives a pod on a node its grace period: the kubelet (here
// simulated) stops it and then deletes it for good with grace period 0. An
// unscheduled pod, or a delete with grace period 0, goes at once.
type podDelete struct{}

func (podDelete) BeginDelete(obj runtime.Object, opts *metav1.DeleteOptions, now time.Time) (changed, keep bool, err error) {
	pod := obj.(*corev1.Pod)
	if len(pod.Finalizers) > 0 {
		return DeleteWhenUnfinalized{}.BeginDelete(obj, opts, now)
	}
	grace := podGracePeriod(pod, opts)
	if pod.Spec.NodeName == "" || grace == 0 {
		return false, false, nil
	}
	// A shorter grace period than the one running replaces it, as kube's.
	if g := pod.DeletionGracePeriodSeconds; pod.DeletionTimestamp == nil || g == nil || *g > grace {
		until := metav1.NewTime(now.Add(time.Duration(grace) * time.Second))
		pod.DeletionTimestamp = &until
		pod.DeletionGracePeriodSeconds = &grace
		changed = true
	}
	return changed, true, nil
}

// Released: no finalizer is left and the grace period was cut to 0.
func (podDelete) Released(obj runtime.Object) bool {
	pod := obj.(*corev1.Pod)
	g := pod.DeletionGracePeriodSeconds
	return len(pod.Finalizers) == 0 && g != nil && *g == 0
}

// podGracePeriod is the grace period of a pod delete: the request's, else
// the pod's spec.terminationGracePeriodSeconds, else 30.
func podGracePeriod(pod *corev1.Pod, opts *metav1.DeleteOptions) int64 {
	switch {
	case opts.GracePeriodSeconds != nil:
		if *opts.GracePeriodSeconds < 0 {
			return 0
		}
		return *opts.GracePeriodSeconds
	case pod.Spec.TerminationGracePeriodSeconds != nil:
		return *pod.Spec.TerminationGracePeriodSeconds
	}
	return corev1.DefaultTerminationGracePeriodSeconds
}

// immortalNamespaces may not be deleted, as kube-apiserver's
// NamespaceLifecycle admission says.
var immortalNamespaces = map[string]bool{"default": true, "kube-system": true, "kube-public": true}

// namespaceDelete: a namespace turns Terminating; the namespace controller
// empties it and removes the "kubernetes" entry of spec.finalizers through
// /finalize, and the namespace goes when both finalizer lists are empty.
type namespaceDelete struct{}

func (namespaceDelete) BeginDelete(obj runtime.Object, _ *metav1.DeleteOptions, now time.Time) (changed, keep bool, err error) {
	ns := obj.(*corev1.Namespace)
	if immortalNamespaces[ns.Name] {
		return false, false, errors.New("this namespace may not be deleted")
	}
	if len(ns.Spec.Finalizers) == 0 && len(ns.Finalizers) == 0 {
		return false, false, nil
	}
	changed = markDeleted(ns, now)
	if ns.Status.Phase != corev1.NamespaceTerminating {
		ns.Status.Phase = corev1.NamespaceTerminating
		changed = true
	}
	return changed, true, nil
}

// Released: both finalizer lists are empty.
func (namespaceDelete) Released(obj runtime.Object) bool {
	ns := obj.(*corev1.Namespace)
	return len(ns.Finalizers) == 0 && len(ns.Spec.Finalizers) == 0
}

// NamespaceTerminating reports whether a stored namespace is being
// deleted, so that nothing new may be created in it (kube's
// NamespaceLifecycle admission).
func NamespaceTerminating(obj runtime.Object) bool {
	ns, ok := obj.(*corev1.Namespace)
	return ok && (ns.DeletionTimestamp != nil || ns.Status.Phase == corev1.NamespaceTerminating)
}
