package registry

// ClusterRoleBindings (rbac.authorization.k8s.io/v1): who gets a
// ClusterRole everywhere. Service account subjects must name their
// namespace; the roleRef never changes.

import (
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/miniapi/miniapi/pkg/apiserver/printers"
)

// clusterRoleBindings is rbac.authorization.k8s.io/v1 clusterrolebindings.
func clusterRoleBindings() *Resource {
	return &Resource{
		Group: rbacGroup, Version: "v1", Resource: "clusterrolebindings", Kind: "ClusterRoleBinding", ListKind: "ClusterRoleBindingList", Singular: "clusterrolebinding",
		New:      func() runtime.Object { return &rbacv1.ClusterRoleBinding{} },
		NewList:  func() runtime.Object { return &rbacv1.ClusterRoleBindingList{} },
		Strategy: clusterRoleBindingStrategy{},
		Table:    printers.ClusterRoleBindings,
	}
}

// clusterRoleBindingKinds are what a ClusterRoleBinding may refer to.
var clusterRoleBindingKinds = []string{"ClusterRole"}

type clusterRoleBindingStrategy struct{}

// PrepareForCreate applies kube's defaults to the roleRef and subjects.
func (clusterRoleBindingStrategy) PrepareForCreate(obj runtime.Object) {
	b := obj.(*rbacv1.ClusterRoleBinding)
	defaultRoleRef(&b.RoleRef)
	defaultSubjects(b.Subjects)
}

// PrepareForUpdate applies the same defaults.
func (s clusterRoleBindingStrategy) PrepareForUpdate(obj, old runtime.Object) {
	s.PrepareForCreate(obj)
}

// Validate checks the name, roleRef and subjects.
func (clusterRoleBindingStrategy) Validate(obj runtime.Object) field.ErrorList {
	b := obj.(*rbacv1.ClusterRoleBinding)
	errs := ValidateMetaCreate(&b.ObjectMeta, false, rbacName)
	errs = append(errs, validateRoleRef(b.RoleRef, clusterRoleBindingKinds)...)
	return append(errs, validateSubjects(b.Subjects, false)...)
}

// ValidateUpdate checks the binding, metadata, and the unchanged roleRef.
func (clusterRoleBindingStrategy) ValidateUpdate(obj, old runtime.Object) field.ErrorList {
	b, o := obj.(*rbacv1.ClusterRoleBinding), old.(*rbacv1.ClusterRoleBinding)
	errs := validateRoleRef(b.RoleRef, clusterRoleBindingKinds)
	errs = append(errs, validateSubjects(b.Subjects, false)...)
	errs = append(errs, ValidateMetaUpdate(&b.ObjectMeta, &o.ObjectMeta)...)
	return append(errs, roleRefUnchanged(b.RoleRef, o.RoleRef)...)
}
