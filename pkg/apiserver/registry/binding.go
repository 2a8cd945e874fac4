package registry

// pods/binding: how a scheduler assigns a pod to a node, as kube-apiserver
// serves it. A Binding names the node; the pod gets spec.nodeName, the
// Binding's annotations and PodScheduled=True in one write, so a bound pod
// costs one commit, not one for the node and one for the condition.

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// maxBindAttempts bounds the retries after a write conflict.
const maxBindAttempts = 10

// bindingSubresource is pods/binding: create-only for clients; bind
// writes the pod through it with the rules below.
func bindingSubresource() *Subresource {
	return &Subresource{
		Kind:             corev1.SchemeGroupVersion.WithKind("Binding"),
		Verbs:            []string{"create"},
		Action:           &Action{New: func() runtime.Object { return &corev1.Binding{} }, Do: bind},
		PrepareForUpdate: prepareBinding,
		ValidateUpdate:   validateBinding,
	}
}

// bind answers one Binding: a Status of Success, or kube's errors (400
// for a name that is not the URL's, 409 for a pod that cannot be bound).
func bind(ctx context.Context, objs Objects, req ActionRequest) (runtime.Object, error) {
	b := req.Body.(*corev1.Binding)
	if b.Name != req.Name {
		return nil, apierrors.NewBadRequest("name in URL does not match name in Binding object")
	}
	if errs := validateBindingTarget(b); len(errs) > 0 {
		return nil, apierrors.NewInvalid(corev1.SchemeGroupVersion.WithKind("Binding").GroupKind(), b.Name, errs)
	}
	for attempt := 1; ; attempt++ {
		obj, err := objs.Get(ctx, podsGVR, req.Namespace, req.Name)
		if err != nil {
			return nil, err
		}
		pod := obj.(*corev1.Pod)
		if err := bindable(pod, b); err != nil {
			return nil, apierrors.NewConflict(schema.GroupResource{Resource: "pods/binding"}, pod.Name, err)
		}
		pod.Spec.NodeName = b.Target.Name
		for k, v := range b.Annotations {
			if pod.Annotations == nil {
				pod.Annotations = map[string]string{}
			}
			pod.Annotations[k] = v
		}
		setScheduled(&pod.Status)
		_, err = objs.Update(ctx, podsGVR, "binding", pod, req.DryRun)
		if apierrors.IsConflict(err) && attempt < maxBindAttempts {
			continue
		}
		if err != nil {
			return nil, err
		}
		return &metav1.Status{Status: metav1.StatusSuccess}, nil
	}
}

// validateBindingTarget is kube's check of a Binding's target.
func validateBindingTarget(b *corev1.Binding) field.ErrorList {
	var errs field.ErrorList
	if b.Target.Kind != "" && b.Target.Kind != "Node" {
		errs = append(errs, field.NotSupported(field.NewPath("target", "kind"), b.Target.Kind, []string{"Node", "<empty>"}))
	}
	if b.Target.Name == "" {
		errs = append(errs, field.Required(field.NewPath("target", "name"), ""))
	}
	return errs
}

// bindable says why pod cannot be bound as b asks, in kube's words.
func bindable(pod *corev1.Pod, b *corev1.Binding) error {
	switch {
	case b.UID != "" && b.UID != pod.UID:
		//lint:ignore ST1005 kube-apiserver's words
		return fmt.Errorf("Precondition failed: UID in precondition: %s, UID in object meta: %s", b.UID, pod.UID)
	case b.ResourceVersion != "" && b.ResourceVersion != pod.ResourceVersion:
		//lint:ignore ST1005 kube-apiserver's words
		return fmt.Errorf("Precondition failed: ResourceVersion in precondition: %s, ResourceVersion in object meta: %s", b.ResourceVersion, pod.ResourceVersion)
	case pod.DeletionTimestamp != nil:
		return fmt.Errorf("pod %s is being deleted, cannot be assigned to a host", pod.Name)
	case pod.Spec.NodeName != "":
		return fmt.Errorf("pod %v is already assigned to node %q", pod.Name, pod.Spec.NodeName)
	case len(pod.Spec.SchedulingGates) != 0:
		return fmt.Errorf("pod %v has non-empty .spec.schedulingGates", pod.Name)
	}
	return nil
}

// setScheduled sets PodScheduled=True, keeping the condition's transition
// time when it already was.
func setScheduled(status *corev1.PodStatus) {
	for i, c := range status.Conditions {
		if c.Type == corev1.PodScheduled {
			if c.Status != corev1.ConditionTrue {
				status.Conditions[i] = scheduledCondition()
			}
			return
		}
	}
	status.Conditions = append(status.Conditions, scheduledCondition())
}

func scheduledCondition() corev1.PodCondition {
	return corev1.PodCondition{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: metav1.Now().Rfc3339Copy()}
}

// prepareBinding keeps everything of the stored pod but what a binding
// sets: the node, annotations and conditions.
func prepareBinding(obj, old runtime.Object) {
	pod, oldPod := obj.(*corev1.Pod), old.(*corev1.Pod)
	nodeName, conditions := pod.Spec.NodeName, pod.Status.Conditions
	pod.Spec, pod.Status = *oldPod.Spec.DeepCopy(), *oldPod.Status.DeepCopy()
	pod.Spec.NodeName, pod.Status.Conditions = nodeName, conditions
}

// validateBinding refuses a second binding that raced past bind's check.
func validateBinding(obj, old runtime.Object) field.ErrorList {
	if old.(*corev1.Pod).Spec.NodeName != "" {
		return field.ErrorList{field.Forbidden(field.NewPath("spec", "nodeName"), "the pod is already assigned to a node")}
	}
	return nil
}
