package registry

// Pods: defaults (API and the default admission plugins users see),
// status reset on create, a mostly immutable spec, generation on spec
// changes (kube-apiserver 1.33+).

import (
	"reflect"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/validate/content"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/diff"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/miniapi/miniapi/pkg/apiserver/printers"
)

// pods is core/v1 pods. A new pod gets, after its defaults and the field
// manager, the admission kube's default plugins give it, in their order:
// the LimitRanges of its namespace (limitRanger, with a store), its
// service account, its priority (podPriority) and the default NoExecute
// tolerations.
func pods(opts Options) *Resource {
	s := podStrategy{}
	return &Resource{
		Version: "v1", Resource: "pods", Kind: "Pod", ListKind: "PodList", Singular: "pod",
		ShortNames: []string{"po"}, Categories: []string{"all"}, Namespaced: true,
		New:     func() runtime.Object { return &corev1.Pod{} },
		NewList: func() runtime.Object { return &corev1.PodList{} },

		Strategy: s,
		Subresources: map[string]*Subresource{
			"status": {PrepareForUpdate: s.PrepareForStatusUpdate, ValidateUpdate: s.ValidateStatusUpdate},
			// What needs a running container: kube lists these, and
			// kubectl logs/exec/attach/port-forward/debug call them.
			"log":                 noContainers("pods/log", "Pod", "get"),
			"exec":                noContainers("pods/exec", "PodExecOptions", "create", "get"),
			"attach":              noContainers("pods/attach", "PodAttachOptions", "create", "get"),
			"portforward":         noContainers("pods/portforward", "PodPortForwardOptions", "create", "get"),
			"ephemeralcontainers": noContainers("pods/ephemeralcontainers", "Pod", "get", "patch", "update"),
			"eviction":            evictionSubresource(),
			"binding":             bindingSubresource(),
		},
		Generation: s.GenerationChanged,
		Delete:     podDelete{},
		Hooks: chain(newLimitRanger(opts.Store), podServiceAccount{}, newPodPriority(opts.Store),
			podDefaultTolerations{}),
		Table:    printers.Pods,
		FieldSet: s.FieldSet,
	}
}

// noContainers is a pod subresource that needs a running container,
// which miniapi never has: every request gets a clear 400.
func noContainers(path, kind string, verbs ...string) *Subresource {
	return &Subresource{
		Kind:        schema.GroupVersionKind{Kind: kind},
		Verbs:       verbs,
		Unavailable: "miniapi runs no containers: " + path + " is not available",
	}
}

type podStrategy struct{}

// PrepareForCreate defaults the pod and resets status to phase Pending
// with the computed QoS class. What kube's admission plugins add comes
// later, from the pod's hooks, so that it is not the creator's managed
// field.
func (podStrategy) PrepareForCreate(obj runtime.Object) {
	pod := obj.(*corev1.Pod)
	defaultPod(pod)
	convertServiceAccount(&pod.Spec)
	pod.Status = corev1.PodStatus{Phase: corev1.PodPending, QOSClass: podQOSClass(&pod.Spec)}
}

// PrepareForUpdate keeps the stored status.
func (podStrategy) PrepareForUpdate(obj, old runtime.Object) {
	pod, oldPod := obj.(*corev1.Pod), old.(*corev1.Pod)
	defaultPod(pod)
	pod.Status = oldPod.Status
}

// PrepareForStatusUpdate keeps the stored spec, owner references and
// deletion timestamp; labels and annotations may change, as in
// kube-apiserver. An empty qosClass or observedGeneration is backfilled.
func (podStrategy) PrepareForStatusUpdate(obj, old runtime.Object) {
	pod, oldPod := obj.(*corev1.Pod), old.(*corev1.Pod)
	pod.Spec = oldPod.Spec
	pod.OwnerReferences = oldPod.OwnerReferences
	pod.DeletionTimestamp = oldPod.DeletionTimestamp
	pod.DeletionGracePeriodSeconds = oldPod.DeletionGracePeriodSeconds
	if pod.Status.QOSClass == "" {
		pod.Status.QOSClass = oldPod.Status.QOSClass
	}
	if pod.Status.ObservedGeneration == 0 {
		pod.Status.ObservedGeneration = oldPod.Status.ObservedGeneration
	}
}

// Validate checks a new pod.
func (podStrategy) Validate(obj runtime.Object) field.ErrorList {
	pod := obj.(*corev1.Pod)
	errs := ValidateMetaCreate(&pod.ObjectMeta, true, apimachineryvalidation.NameIsDNSSubdomain)
	return append(errs, validatePodSpec(&pod.Spec, field.NewPath("spec"))...)
}

// ValidateUpdate checks an update of the main resource.
func (podStrategy) ValidateUpdate(obj, old runtime.Object) field.ErrorList {
	pod, oldPod := obj.(*corev1.Pod), old.(*corev1.Pod)
	errs := ValidateMetaUpdate(&pod.ObjectMeta, &oldPod.ObjectMeta)
	errs = append(errs, validatePodSpec(&pod.Spec, field.NewPath("spec"))...)
	return append(errs, validatePodSpecUpdate(&pod.Spec, &oldPod.Spec)...)
}

// ValidateStatusUpdate checks a write to pods/status.
func (podStrategy) ValidateStatusUpdate(obj, old runtime.Object) field.ErrorList {
	pod, oldPod := obj.(*corev1.Pod), old.(*corev1.Pod)
	errs := ValidateMetaUpdate(&pod.ObjectMeta, &oldPod.ObjectMeta)
	statusPath := field.NewPath("status")
	errs = append(errs, optionalName(statusPath.Child("nominatedNodeName"), pod.Status.NominatedNodeName, content.IsDNS1123Subdomain)...)
	return append(errs, apimachineryvalidation.ValidateImmutableField(pod.Status.QOSClass, oldPod.Status.QOSClass, statusPath.Child("qosClass"))...)
}

// GenerationChanged is true when the spec changed.
func (podStrategy) GenerationChanged(obj, old runtime.Object) bool {
	return !apiequality.Semantic.DeepEqual(obj.(*corev1.Pod).Spec, old.(*corev1.Pod).Spec)
}

// FieldSet offers the same field selectors as kube-apiserver.
func (podStrategy) FieldSet(obj runtime.Object) fields.Set {
	pod := obj.(*corev1.Pod)
	podIP := ""
	if len(pod.Status.PodIPs) > 0 {
		podIP = pod.Status.PodIPs[0].IP
	} else {
		podIP = pod.Status.PodIP
	}
	return mergeFields(metaFields(pod, true), fields.Set{
		"spec.nodeName":            pod.Spec.NodeName,
		"spec.restartPolicy":       string(pod.Spec.RestartPolicy),
		"spec.schedulerName":       pod.Spec.SchedulerName,
		"spec.serviceAccountName":  pod.Spec.ServiceAccountName,
		"spec.hostNetwork":         strconv.FormatBool(pod.Spec.HostNetwork),
		"status.phase":             string(pod.Status.Phase),
		"status.podIP":             podIP,
		"status.nominatedNodeName": pod.Status.NominatedNodeName,
	})
}

// updatablePodSpecFields is what kube-apiserver's message lists as
// changeable on a running pod.
var updatablePodSpecFields = []string{
	"`spec.containers[*].image`",
	"`spec.initContainers[*].image`",
	"`spec.activeDeadlineSeconds`",
	"`spec.tolerations` (only additions to existing tolerations)",
	"`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)",
}

// validatePodSpecUpdate forbids changes other than the updatable fields.
// It blanks out the allowed changes on a copy and compares the rest.
// Deviation from kube: with no pods/binding subresource, a pod is bound
// by setting spec.nodeName once; changing it after that is forbidden.
func validatePodSpecUpdate(spec, old *corev1.PodSpec) field.ErrorList {
	specPath := field.NewPath("spec")
	errs := validateActiveDeadlineUpdate(spec.ActiveDeadlineSeconds, old.ActiveDeadlineSeconds, specPath.Child("activeDeadlineSeconds"))
	errs = append(errs, validateOnlyAddedTolerations(spec.Tolerations, old.Tolerations, specPath.Child("tolerations"))...)

	munged := spec.DeepCopy()
	copyImages(munged.Containers, old.Containers)
	copyImages(munged.InitContainers, old.InitContainers)
	munged.ActiveDeadlineSeconds = old.ActiveDeadlineSeconds
	munged.Tolerations = old.Tolerations
	if t, o := spec.TerminationGracePeriodSeconds, old.TerminationGracePeriodSeconds; t != nil && o != nil && *o < 0 && *t == 1 {
		munged.TerminationGracePeriodSeconds = o
	}
	if old.NodeName == "" {
		munged.NodeName = ""
	}
	if gatesRemovedOnly(spec.SchedulingGates, old.SchedulingGates) {
		munged.SchedulingGates = old.SchedulingGates
	}
	if !apiequality.Semantic.DeepEqual(*munged, *old) {
		msg := "pod updates may not change fields other than " + strings.Join(updatablePodSpecFields, ",") + "\n" + diff.Diff(*old, *munged)
		errs = append(errs, field.Forbidden(specPath, msg))
	}
	return errs
}

func copyImages(dst, src []corev1.Container) {
	if len(dst) != len(src) {
		return
	}
	for i := range dst {
		dst[i].Image = src[i].Image
	}
}

func validateActiveDeadlineUpdate(v, old *int64, fldPath *field.Path) field.ErrorList {
	switch {
	case v == nil && old != nil:
		return field.ErrorList{field.Invalid(fldPath, v, "must not update from a positive integer to nil value")}
	case v != nil && old != nil && *v > *old:
		return field.ErrorList{field.Invalid(fldPath, *v, "must be less than or equal to previous value")}
	}
	return nil
}

// validateOnlyAddedTolerations: every old toleration must still be there;
// only its tolerationSeconds may change.
func validateOnlyAddedTolerations(tolerations, old []corev1.Toleration, fldPath *field.Path) field.ErrorList {
	for _, o := range old {
		found := false
		for _, t := range tolerations {
			o.TolerationSeconds = t.TolerationSeconds
			if reflect.DeepEqual(o, t) {
				found = true
				break
			}
		}
		if !found {
			return field.ErrorList{field.Forbidden(fldPath, "existing toleration can not be modified except its tolerationSeconds")}
		}
	}
	return nil
}

func gatesRemovedOnly(gates, old []corev1.PodSchedulingGate) bool {
	had := map[string]bool{}
	for _, g := range old {
		had[g.Name] = true
	}
	for _, g := range gates {
		if !had[g.Name] {
			return false
		}
	}
	return true
}
