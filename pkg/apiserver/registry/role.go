package registry

// Roles (rbac.authorization.k8s.io/v1): a namespace's named set of policy
// rules. Stored only; miniapi authorizes nothing with them.

import (
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/miniapi/miniapi/pkg/apiserver/printers"
)

// roles is rbac.authorization.k8s.io/v1 roles.
func roles() *Resource {
	return &Resource{
		Group: rbacGroup, Version: "v1", Resource: "roles", Kind: "Role", ListKind: "RoleList", Singular: "role",
		Namespaced: true,
		New:        func() runtime.Object { return &rbacv1.Role{} },
		NewList:    func() runtime.Object { return &rbacv1.RoleList{} },
		Strategy:   roleStrategy{},
		// kube-apiserver has no columns of its own for roles: NAME, CREATED AT.
		Table: printers.Default,
	}
}

type roleStrategy struct{}

// PrepareForCreate: a Role has no defaults and no status.
func (roleStrategy) PrepareForCreate(obj runtime.Object) {}

// PrepareForUpdate: every field may be written.
func (roleStrategy) PrepareForUpdate(obj, old runtime.Object) {}

// Validate checks the name (a path segment) and every rule.
func (roleStrategy) Validate(obj runtime.Object) field.ErrorList {
	r := obj.(*rbacv1.Role)
	errs := ValidateMetaCreate(&r.ObjectMeta, true, rbacName)
	return append(errs, validatePolicyRules(r.Rules, true)...)
}

// ValidateUpdate checks the rules, then metadata, in kube's order.
func (roleStrategy) ValidateUpdate(obj, old runtime.Object) field.ErrorList {
	r := obj.(*rbacv1.Role)
	errs := validatePolicyRules(r.Rules, true)
	return append(errs, ValidateMetaUpdate(&r.ObjectMeta, &old.(*rbacv1.Role).ObjectMeta)...)
}
