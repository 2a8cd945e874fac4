package registry

// kube-apiserver's LimitRanger admission on creates: a new pod's
// containers get the default requests and limits of the LimitRanges in
// its namespace (BeginCreate, before validation, as kube's mutating
// step), and a pod or claim that breaks a LimitRange's min, max or ratio
// is refused with 403 Forbidden (ValidateCreate, after validation, as
// kube's validating step). Like kube's, every LimitRange in the namespace
// applies, in turn, and the first one broken is the one reported.
//
// Updates are not checked: kube skips pod updates too (containers cannot
// change outside pods/resize, which miniapi does not serve), and a claim's
// storage request can change only once it is bound, which no claim here
// ever is. kube reads LimitRanges from an informer cache; here each
// create reads them from the store, one prefix scan of the namespace.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"

	"github.com/miniapi/miniapi/pkg/storage"
)

// limitRanger are the WriteHooks (and CreateValidator) of pods and claims
// that apply the LimitRanges of their namespace.
type limitRanger struct {
	noHooks
	store  storage.Store
	ranges string // the store key prefix of LimitRanges
}

func newLimitRanger(store storage.Store) WriteHooks {
	if store == nil {
		return nil
	}
	return limitRanger{store: store, ranges: (&Resource{Resource: "limitranges"}).KeyPrefix()}
}

// BeginCreate fills a new pod's missing requests and limits from the
// LimitRanges' Container defaults. The pod's QoS class, which its
// PrepareForCreate computed from what the client sent, is computed again,
// as kube computes it after admission.
func (h limitRanger) BeginCreate(ctx context.Context, obj runtime.Object, dryRun bool) (FinishFunc, error) {
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return noFinish, nil
	}
	ranges, err := h.list(ctx, pod.Namespace, podsResource, pod.Name)
	if err != nil {
		return nil, err
	}
	changed := false
	for _, lr := range ranges {
		if applyLimitRangeDefaults(lr, pod) {
			changed = true
		}
	}
	if changed {
		pod.Status.QOSClass = podQOSClass(&pod.Spec)
	}
	return noFinish, nil
}

// ValidateCreate refuses a pod or claim that breaks a LimitRange of its
// namespace, with every way it breaks the first such LimitRange.
func (h limitRanger) ValidateCreate(ctx context.Context, obj runtime.Object) error {
	var (
		gr         schema.GroupResource
		ns, name   string
		violations func(*corev1.LimitRange) []error
	)
	switch o := obj.(type) {
	case *corev1.Pod:
		gr, ns, name = podsResource, o.Namespace, o.Name
		violations = func(lr *corev1.LimitRange) []error { return podLimitViolations(lr, o) }
	case *corev1.PersistentVolumeClaim:
		gr, ns, name = schema.GroupResource{Resource: "persistentvolumeclaims"}, o.Namespace, o.Name
		violations = func(lr *corev1.LimitRange) []error { return pvcLimitViolations(lr, o) }
	default:
		return nil
	}
	ranges, err := h.list(ctx, ns, gr, name)
	if err != nil {
		return err
	}
	for _, lr := range ranges {
		if errs := violations(lr); len(errs) > 0 {
			return apierrors.NewForbidden(gr, name, utilerrors.NewAggregate(errs))
		}
	}
	return nil
}

// list reads the LimitRanges of namespace ns, by name. A failure refuses
// the create of gr's object name, as kube's does.
func (h limitRanger) list(ctx context.Context, ns string, gr schema.GroupResource, name string) ([]*corev1.LimitRange, error) {
	list, err := h.store.List(ctx, h.ranges+ns+"/", storage.ListOptions{})
	if err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return nil, err
		}
		gvr := schema.GroupVersionResource{Group: gr.Group, Version: "v1", Resource: gr.Resource}
		return nil, apierrors.NewForbidden(gr, name, fmt.Errorf("unable to CREATE %v at this time because there was an error enforcing limit ranges", gvr))
	}
	ranges := make([]*corev1.LimitRange, 0, len(list.KVs))
	for _, kv := range list.KVs {
		lr := &corev1.LimitRange{}
		if err := json.Unmarshal(kv.Value, lr); err != nil {
			return nil, apierrors.NewInternalError(fmt.Errorf("decoding %s: %w", kv.Key, err))
		}
		ranges = append(ranges, lr)
	}
	return ranges, nil
}
