package registry

// A new pod's priorityClassName resolved into spec.priority and
// spec.preemptionPolicy, as kube-apiserver's Priority admission plugin
// does: an unknown class is 403 Forbidden, and a priority or policy the
// pod sets itself must agree with the class. Pods without a class get
// priority 0 and policy PreemptLowerPriority, unless they set their own;
// unlike kube, a global default class is not applied to them, which would
// cost a list of the classes on every pod create. Like every admission
// plugin this runs after the field manager: what it sets is nobody's
// managed field.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/miniapi/miniapi/pkg/storage"
)

// podPriority are the WriteHooks of pods that resolve priority classes.
// They hold nothing outside the objects. Without a store there are no
// classes.
type podPriority struct {
	store   storage.Store
	classes string // the store key prefix of priority classes
}

func newPodPriority(store storage.Store) WriteHooks {
	return podPriority{store: store, classes: (&Resource{Group: schedulingv1.GroupName, Resource: "priorityclasses"}).KeyPrefix()}
}

var podsResource = schema.GroupResource{Resource: "pods"}

// BeginCreate sets the priority and preemption policy of the pod's class.
func (h podPriority) BeginCreate(ctx context.Context, obj runtime.Object, dryRun bool) (FinishFunc, error) {
	pod := obj.(*corev1.Pod)
	if pod.Spec.PriorityClassName == "" {
		defaultPriority(&pod.Spec)
		return noFinish, nil
	}
	pc, err := h.class(ctx, pod.Spec.PriorityClassName)
	if err != nil {
		return nil, err
	}
	if pc == nil {
		return nil, apierrors.NewForbidden(podsResource, pod.Name, fmt.Errorf("no PriorityClass with name %v was found", pod.Spec.PriorityClassName))
	}
	if p := pod.Spec.Priority; p != nil && *p != pc.Value {
		return nil, apierrors.NewForbidden(podsResource, pod.Name, fmt.Errorf(
			"the integer value of priority (%d) must not be provided in pod spec; priority admission controller computed %d from the given PriorityClass name", *p, pc.Value))
	}
	value := pc.Value
	pod.Spec.Priority = &value
	if want := pc.PreemptionPolicy; want != nil {
		if p := pod.Spec.PreemptionPolicy; p != nil && *p != *want {
			return nil, apierrors.NewForbidden(podsResource, pod.Name, fmt.Errorf(
				"the string value of PreemptionPolicy (%s) must not be provided in pod spec; priority admission controller computed %s from the given PriorityClass name", *p, *want))
		}
		policy := *want
		pod.Spec.PreemptionPolicy = &policy
	}
	return noFinish, nil
}

// defaultPriority gives a pod without a class priority 0 and the policy
// PreemptLowerPriority, unless it set them.
func defaultPriority(spec *corev1.PodSpec) {
	if spec.Priority == nil {
		zero := int32(0)
		spec.Priority = &zero
	}
	if spec.PreemptionPolicy == nil {
		p := corev1.PreemptLowerPriority
		spec.PreemptionPolicy = &p
	}
}

// class reads a stored priority class; nil when there is none.
func (h podPriority) class(ctx context.Context, name string) (*schedulingv1.PriorityClass, error) {
	if h.store == nil {
		return nil, nil
	}
	kv, err := h.store.Get(ctx, h.classes+name)
	if errors.Is(err, storage.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, apierrors.NewInternalError(fmt.Errorf("reading PriorityClass %s: %w", name, err))
	}
	var pc schedulingv1.PriorityClass
	if err := json.Unmarshal(kv.Value, &pc); err != nil {
		return nil, apierrors.NewInternalError(fmt.Errorf("decoding PriorityClass %s: %w", name, err))
	}
	return &pc, nil
}

// BeginUpdate: a pod's priority never changes (validation says so).
func (podPriority) BeginUpdate(context.Context, runtime.Object, runtime.Object, bool) (FinishFunc, error) {
	return noFinish, nil
}

// AfterDelete: nothing is kept outside the objects.
func (podPriority) AfterDelete(context.Context, runtime.Object) {}
