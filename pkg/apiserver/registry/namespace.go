package registry

// Namespaces: phase Active and the "kubernetes" finalizer on create, the
// kubernetes.io/metadata.name label always equal to the name, and
// spec.finalizers changed only through /finalize.

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/miniapi/miniapi/pkg/apiserver/printers"
)

// namespaces is core/v1 namespaces.
func namespaces() *Resource {
	s := namespaceStrategy{}
	return &Resource{
		Version: "v1", Resource: "namespaces", Kind: "Namespace", ListKind: "NamespaceList", Singular: "namespace",
		ShortNames: []string{"ns"},
		// Namespaces have no deletecollection in Kubernetes.
		Verbs:   []string{"create", "delete", "get", "list", "patch", "update", "watch"},
		New:     func() runtime.Object { return &corev1.Namespace{} },
		NewList: func() runtime.Object { return &corev1.NamespaceList{} },

		Strategy: s,
		Subresources: map[string]*Subresource{
			"status":   {PrepareForUpdate: s.PrepareForStatusUpdate, ValidateUpdate: s.ValidateStatusUpdate},
			"finalize": {PrepareForUpdate: prepareForFinalize, ValidateUpdate: validateFinalize, Verbs: []string{"update"}},
		},
		Delete:   namespaceDelete{},
		Table:    printers.Namespaces,
		FieldSet: s.FieldSet,
	}
}

type namespaceStrategy struct{}

// standardFinalizers may be named without a domain prefix.
var standardFinalizers = map[string]bool{
	string(corev1.FinalizerKubernetes): true,
	metav1.FinalizerOrphanDependents:   true,
	metav1.FinalizerDeleteDependents:   true,
}

// defaultNamespace applies v1 defaulting: the name label, and phase
// Active when none is set.
func defaultNamespace(ns *corev1.Namespace) {
	if ns.Labels == nil {
		ns.Labels = map[string]string{}
	}
	ns.Labels[corev1.LabelMetadataName] = ns.Name
	if ns.Status.Phase == "" {
		ns.Status.Phase = corev1.NamespaceActive
	}
}

// PrepareForCreate sets phase Active and makes sure the "kubernetes"
// finalizer is present (the namespace controller removes it once the
// namespace is empty).
func (namespaceStrategy) PrepareForCreate(obj runtime.Object) {
	ns := obj.(*corev1.Namespace)
	ns.Status = corev1.NamespaceStatus{Phase: corev1.NamespaceActive}
	hasKube := false
	for _, f := range ns.Spec.Finalizers {
		if f == corev1.FinalizerKubernetes {
			hasKube = true
		}
	}
	if !hasKube {
		ns.Spec.Finalizers = append(ns.Spec.Finalizers, corev1.FinalizerKubernetes)
	}
	defaultNamespace(ns)
}

// PrepareForUpdate keeps the stored status and spec.finalizers.
func (namespaceStrategy) PrepareForUpdate(obj, old runtime.Object) {
	ns, o := obj.(*corev1.Namespace), old.(*corev1.Namespace)
	ns.Spec.Finalizers = o.Spec.Finalizers
	ns.Status = o.Status
	defaultNamespace(ns)
}

// PrepareForStatusUpdate keeps the stored spec.
func (namespaceStrategy) PrepareForStatusUpdate(obj, old runtime.Object) {
	ns := obj.(*corev1.Namespace)
	ns.Spec = old.(*corev1.Namespace).Spec
	defaultNamespace(ns)
}

// prepareForFinalize is the rule for PUT /api/v1/namespaces/NAME/finalize:
// the stored status is kept, spec.finalizers (and metadata) come from the
// request, as in kube-apiserver's finalize strategy.
func prepareForFinalize(obj, old runtime.Object) {
	ns := obj.(*corev1.Namespace)
	ns.Status = old.(*corev1.Namespace).Status
	defaultNamespace(ns)
}

// validateFinalize checks a /finalize write.
func validateFinalize(obj, old runtime.Object) field.ErrorList {
	ns, o := obj.(*corev1.Namespace), old.(*corev1.Namespace)
	errs := ValidateMetaUpdate(&ns.ObjectMeta, &o.ObjectMeta)
	path := field.NewPath("spec", "finalizers")
	for i, f := range ns.Spec.Finalizers {
		errs = append(errs, validateFinalizerName(string(f), path.Index(i))...)
	}
	return errs
}

// Validate checks a new namespace: the name is a DNS label.
func (namespaceStrategy) Validate(obj runtime.Object) field.ErrorList {
	ns := obj.(*corev1.Namespace)
	errs := ValidateMetaCreate(&ns.ObjectMeta, false, apimachineryvalidation.ValidateNamespaceName)
	for _, f := range ns.Spec.Finalizers {
		errs = append(errs, validateFinalizerName(string(f), field.NewPath("spec", "finalizers"))...)
	}
	return errs
}

// ValidateUpdate checks metadata (spec.finalizers cannot change here).
func (namespaceStrategy) ValidateUpdate(obj, old runtime.Object) field.ErrorList {
	return ValidateMetaUpdate(&obj.(*corev1.Namespace).ObjectMeta, &old.(*corev1.Namespace).ObjectMeta)
}

// ValidateStatusUpdate: the phase is Active until deletion starts, and
// Terminating after (kube reports the field as "status.Phase").
func (namespaceStrategy) ValidateStatusUpdate(obj, old runtime.Object) field.ErrorList {
	ns, o := obj.(*corev1.Namespace), old.(*corev1.Namespace)
	errs := ValidateMetaUpdate(&ns.ObjectMeta, &o.ObjectMeta)
	phasePath := field.NewPath("status", "Phase")
	if ns.DeletionTimestamp.IsZero() {
		if ns.Status.Phase != corev1.NamespaceActive {
			errs = append(errs, field.Invalid(phasePath, ns.Status.Phase, "may only be 'Active' if `deletionTimestamp` is empty"))
		}
	} else if ns.Status.Phase != corev1.NamespaceTerminating {
		errs = append(errs, field.Invalid(phasePath, ns.Status.Phase, "may only be 'Terminating' if `deletionTimestamp` is not empty"))
	}
	return errs
}

// FieldSet offers metadata.name, status.phase and the legacy "name".
func (namespaceStrategy) FieldSet(obj runtime.Object) fields.Set {
	ns := obj.(*corev1.Namespace)
	return mergeFields(metaFields(ns, false), fields.Set{
		"status.phase": string(ns.Status.Phase),
		"name":         ns.Name,
	})
}

// validateFinalizerName: a qualified name, and without a domain prefix
// only one of the standard finalizers.
func validateFinalizerName(name string, fldPath *field.Path) field.ErrorList {
	errs := apimachineryvalidation.ValidateFinalizerName(name, fldPath)
	if !strings.Contains(name, "/") && !standardFinalizers[name] {
		errs = append(errs, field.Invalid(fldPath, name, "name is neither a standard finalizer name nor is it fully qualified"))
	}
	return errs
}
