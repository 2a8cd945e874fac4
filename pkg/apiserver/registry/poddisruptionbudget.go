package registry

// PodDisruptionBudgets (policy/v1): how many pods of a set may be down
// at once. The server stores and validates them; the disruption
// controller writes their status, and pods/eviction reads it.

import (
	policyv1 "k8s.io/api/policy/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/miniapi/miniapi/pkg/apiserver/printers"
)

// podDisruptionBudgets is policy/v1 poddisruptionbudgets.
func podDisruptionBudgets() *Resource {
	s := pdbStrategy{}
	return &Resource{
		Group: "policy", Version: "v1", Resource: "poddisruptionbudgets", Kind: "PodDisruptionBudget",
		ListKind: "PodDisruptionBudgetList", Singular: "poddisruptionbudget",
		ShortNames: []string{"pdb"}, Namespaced: true,
		New:      func() runtime.Object { return &policyv1.PodDisruptionBudget{} },
		NewList:  func() runtime.Object { return &policyv1.PodDisruptionBudgetList{} },
		Strategy: s,
		Subresources: map[string]*Subresource{
			"status": {PrepareForUpdate: s.PrepareForStatusUpdate, ValidateUpdate: s.ValidateStatusUpdate},
		},
		Generation: s.GenerationChanged,
		Table:      printers.PodDisruptionBudgets,
	}
}

type pdbStrategy struct{}

// PrepareForCreate starts the status at zero, as kube-apiserver does.
func (pdbStrategy) PrepareForCreate(obj runtime.Object) {
	obj.(*policyv1.PodDisruptionBudget).Status = policyv1.PodDisruptionBudgetStatus{}
}

// PrepareForUpdate keeps the stored status.
func (pdbStrategy) PrepareForUpdate(obj, old runtime.Object) {
	obj.(*policyv1.PodDisruptionBudget).Status = old.(*policyv1.PodDisruptionBudget).Status
}

// PrepareForStatusUpdate keeps the stored spec.
func (pdbStrategy) PrepareForStatusUpdate(obj, old runtime.Object) {
	obj.(*policyv1.PodDisruptionBudget).Spec = old.(*policyv1.PodDisruptionBudget).Spec
}

// Validate checks a new budget.
func (pdbStrategy) Validate(obj runtime.Object) field.ErrorList {
	pdb := obj.(*policyv1.PodDisruptionBudget)
	errs := ValidateMetaCreate(&pdb.ObjectMeta, true, apimachineryvalidation.NameIsDNSSubdomain)
	return append(errs, validatePDBSpec(&pdb.Spec, specPath)...)
}

// ValidateUpdate checks an update: the whole spec may change (kube 1.15+).
func (pdbStrategy) ValidateUpdate(obj, old runtime.Object) field.ErrorList {
	pdb := obj.(*policyv1.PodDisruptionBudget)
	errs := ValidateMetaUpdate(&pdb.ObjectMeta, &old.(*policyv1.PodDisruptionBudget).ObjectMeta)
	return append(errs, validatePDBSpec(&pdb.Spec, specPath)...)
}

// ValidateStatusUpdate checks the counters and conditions a status write
// sets.
func (pdbStrategy) ValidateStatusUpdate(obj, old runtime.Object) field.ErrorList {
	pdb := obj.(*policyv1.PodDisruptionBudget)
	errs := ValidateMetaUpdate(&pdb.ObjectMeta, &old.(*policyv1.PodDisruptionBudget).ObjectMeta)
	statusPath := field.NewPath("status")
	st := pdb.Status
	errs = append(errs, metav1validation.ValidateConditions(st.Conditions, statusPath.Child("conditions"))...)
	errs = append(errs, nonNegative(int64(st.DisruptionsAllowed), statusPath.Child("disruptionsAllowed"))...)
	errs = append(errs, nonNegative(int64(st.CurrentHealthy), statusPath.Child("currentHealthy"))...)
	errs = append(errs, nonNegative(int64(st.DesiredHealthy), statusPath.Child("desiredHealthy"))...)
	return append(errs, nonNegative(int64(st.ExpectedPods), statusPath.Child("expectedPods"))...)
}

// GenerationChanged is true when the spec changed.
func (pdbStrategy) GenerationChanged(obj, old runtime.Object) bool {
	return !apiequality.Semantic.DeepEqual(obj.(*policyv1.PodDisruptionBudget).Spec, old.(*policyv1.PodDisruptionBudget).Spec)
}

// pdbSpecForMessages is how kube-apiserver prints a whole spec in an
// error: its internal type, which has no JSON names.
type pdbSpecForMessages struct {
	MinAvailable               *intstr.IntOrString
	Selector                   *metav1.LabelSelector
	MaxUnavailable             *intstr.IntOrString
	UnhealthyPodEvictionPolicy *policyv1.UnhealthyPodEvictionPolicyType
}

// unhealthyPodEvictionPolicies are the policies kube accepts, sorted as
// its message lists them.
var unhealthyPodEvictionPolicies = []string{string(policyv1.AlwaysAllow), string(policyv1.IfHealthyBudget)}

// validatePDBSpec follows kube's ValidatePodDisruptionBudgetSpec.
func validatePDBSpec(spec *policyv1.PodDisruptionBudgetSpec, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if spec.MinAvailable != nil && spec.MaxUnavailable != nil {
		shown := pdbSpecForMessages{spec.MinAvailable, spec.Selector, spec.MaxUnavailable, spec.UnhealthyPodEvictionPolicy}
		errs = append(errs, field.Invalid(path, shown, "minAvailable and maxUnavailable cannot be both set"))
	}
	if spec.MinAvailable != nil {
		errs = append(errs, validateBudgetValue(*spec.MinAvailable, path.Child("minAvailable"))...)
	}
	if spec.MaxUnavailable != nil {
		errs = append(errs, validateBudgetValue(*spec.MaxUnavailable, path.Child("maxUnavailable"))...)
	}
	opts := metav1validation.LabelSelectorValidationOptions{}
	errs = append(errs, metav1validation.ValidateLabelSelector(spec.Selector, opts, path.Child("selector"))...)
	if p := spec.UnhealthyPodEvictionPolicy; p != nil && *p != policyv1.AlwaysAllow && *p != policyv1.IfHealthyBudget {
		errs = append(errs, field.NotSupported(path.Child("unhealthyPodEvictionPolicy"), *p, unhealthyPodEvictionPolicies))
	}
	return errs
}

// validateBudgetValue: a non-negative integer or a percentage of at most
// 100%.
func validateBudgetValue(v intstr.IntOrString, path *field.Path) field.ErrorList {
	errs := validateIntOrPercent(v, path)
	if n, isPercent := percentValue(v); isPercent && n > 100 {
		errs = append(errs, field.Invalid(path, v, "must not be greater than 100%"))
	}
	return errs
}
