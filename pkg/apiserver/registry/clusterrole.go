package registry

// ClusterRoles (rbac.authorization.k8s.io/v1): cluster-wide policy rules,
// which may also name non-resource URLs, and an aggregationRule. The rule
// is stored as written: kube-controller-manager's clusterrole-aggregation
// controller, which fills in the aggregated rules, does not run here.

import (
	rbacv1 "k8s.io/api/rbac/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/miniapi/miniapi/pkg/apiserver/printers"
)

// clusterRoles is rbac.authorization.k8s.io/v1 clusterroles.
func clusterRoles() *Resource {
	return &Resource{
		Group: rbacGroup, Version: "v1", Resource: "clusterroles", Kind: "ClusterRole", ListKind: "ClusterRoleList", Singular: "clusterrole",
		New:      func() runtime.Object { return &rbacv1.ClusterRole{} },
		NewList:  func() runtime.Object { return &rbacv1.ClusterRoleList{} },
		Strategy: clusterRoleStrategy{},
		// kube-apiserver has no columns of its own: NAME, CREATED AT.
		Table: printers.Default,
	}
}

type clusterRoleStrategy struct{}

// PrepareForCreate: a ClusterRole has no defaults and no status.
func (clusterRoleStrategy) PrepareForCreate(obj runtime.Object) {}

// PrepareForUpdate: every field may be written.
func (clusterRoleStrategy) PrepareForUpdate(obj, old runtime.Object) {}

// Validate checks the name, the rules and the aggregationRule.
func (clusterRoleStrategy) Validate(obj runtime.Object) field.ErrorList {
	r := obj.(*rbacv1.ClusterRole)
	errs := ValidateMetaCreate(&r.ObjectMeta, false, rbacName)
	return append(errs, validateClusterRoleSpec(r)...)
}

// ValidateUpdate checks the spec, then metadata, in kube's order.
func (clusterRoleStrategy) ValidateUpdate(obj, old runtime.Object) field.ErrorList {
	r := obj.(*rbacv1.ClusterRole)
	errs := validateClusterRoleSpec(r)
	return append(errs, ValidateMetaUpdate(&r.ObjectMeta, &old.(*rbacv1.ClusterRole).ObjectMeta)...)
}

func validateClusterRoleSpec(r *rbacv1.ClusterRole) field.ErrorList {
	errs := validatePolicyRules(r.Rules, false)
	if r.AggregationRule == nil {
		return errs
	}
	selectors := field.NewPath("aggregationRule", "clusterRoleSelectors")
	if len(r.AggregationRule.ClusterRoleSelectors) == 0 {
		errs = append(errs, field.Required(selectors, "at least one clusterRoleSelector required if aggregationRule is non-nil"))
	}
	for i := range r.AggregationRule.ClusterRoleSelectors {
		errs = append(errs, metav1validation.ValidateLabelSelector(&r.AggregationRule.ClusterRoleSelectors[i], metav1validation.LabelSelectorValidationOptions{}, selectors.Index(i))...)
	}
	return errs
}
