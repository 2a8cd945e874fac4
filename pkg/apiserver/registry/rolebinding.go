package registry

// RoleBindings (rbac.authorization.k8s.io/v1): who (subjects) gets a Role
// or ClusterRole (roleRef) in one namespace. The roleRef never changes.

import (
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/miniapi/miniapi/pkg/apiserver/printers"
)

// rolebindings is rbac.authorization.k8s.io/v1 rolebindings.
func roleBindings() *Resource {
	return &Resource{
		Group: rbacGroup, Version: "v1", Resource: "rolebindings", Kind: "RoleBinding", ListKind: "RoleBindingList", Singular: "rolebinding",
		Namespaced: true,
		New:        func() runtime.Object { return &rbacv1.RoleBinding{} },
		NewList:    func() runtime.Object { return &rbacv1.RoleBindingList{} },
		Strategy:   roleBindingStrategy{},
		Table:      printers.RoleBindings,
	}
}

// roleBindingKinds are what a RoleBinding may refer to.
var roleBindingKinds = []string{"Role", "ClusterRole"}

type roleBindingStrategy struct{}

// PrepareForCreate applies kube's defaults: the API groups of the roleRef
// and of user and group subjects.
func (roleBindingStrategy) PrepareForCreate(obj runtime.Object) {
	b := obj.(*rbacv1.RoleBinding)
	defaultRoleRef(&b.RoleRef)
	defaultSubjects(b.Subjects)
}

// PrepareForUpdate applies the same defaults.
func (s roleBindingStrategy) PrepareForUpdate(obj, old runtime.Object) { s.PrepareForCreate(obj) }

// Validate checks the name, roleRef and subjects.
func (roleBindingStrategy) Validate(obj runtime.Object) field.ErrorList {
	b := obj.(*rbacv1.RoleBinding)
	errs := ValidateMetaCreate(&b.ObjectMeta, true, rbacName)
	errs = append(errs, validateRoleRef(b.RoleRef, roleBindingKinds)...)
	return append(errs, validateSubjects(b.Subjects, true)...)
}

// ValidateUpdate checks the binding as on create (without the name),
// metadata, and that the roleRef did not change.
func (roleBindingStrategy) ValidateUpdate(obj, old runtime.Object) field.ErrorList {
	b, o := obj.(*rbacv1.RoleBinding), old.(*rbacv1.RoleBinding)
	errs := validateRoleRef(b.RoleRef, roleBindingKinds)
	errs = append(errs, validateSubjects(b.Subjects, true)...)
	errs = append(errs, ValidateMetaUpdate(&b.ObjectMeta, &o.ObjectMeta)...)
	return append(errs, roleRefUnchanged(b.RoleRef, o.RoleRef)...)
}
