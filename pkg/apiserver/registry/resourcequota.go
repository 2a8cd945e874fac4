package registry

// ResourceQuotas: stored only. With no quota controller nothing fills
// status (kube-apiserver stores status: {} on create, as the reference
// shows) and, as there, nothing is enforced. Validation is kube's: known
// or qualified resource names, non-negative (and for counts, integer)
// amounts, known scopes, and scopes fixed after create.

import (
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/miniapi/miniapi/pkg/apiserver/printers"
)

// resourceQuotas is core/v1 resourcequotas.
func resourceQuotas() *Resource {
	s := quotaStrategy{}
	return &Resource{
		Version: "v1", Resource: "resourcequotas", Kind: "ResourceQuota", ListKind: "ResourceQuotaList",
		Singular: "resourcequota", ShortNames: []string{"quota"}, Namespaced: true,
		New:      func() runtime.Object { return &corev1.ResourceQuota{} },
		NewList:  func() runtime.Object { return &corev1.ResourceQuotaList{} },
		Strategy: s,
		Subresources: map[string]*Subresource{
			"status": {PrepareForUpdate: s.PrepareForStatusUpdate, ValidateUpdate: s.ValidateStatusUpdate},
		},
		Table: printers.ResourceQuotas,
	}
}

type quotaStrategy struct{}

func (quotaStrategy) PrepareForCreate(obj runtime.Object) {
	obj.(*corev1.ResourceQuota).Status = corev1.ResourceQuotaStatus{}
}

func (quotaStrategy) PrepareForUpdate(obj, old runtime.Object) {
	obj.(*corev1.ResourceQuota).Status = old.(*corev1.ResourceQuota).Status
}

func (quotaStrategy) PrepareForStatusUpdate(obj, old runtime.Object) {
	obj.(*corev1.ResourceQuota).Spec = old.(*corev1.ResourceQuota).Spec
}

func (quotaStrategy) Validate(obj runtime.Object) field.ErrorList {
	q := obj.(*corev1.ResourceQuota)
	errs := ValidateMetaCreate(&q.ObjectMeta, true, apimachineryvalidation.NameIsDNSSubdomain)
	return append(errs, validateQuotaSpec(&q.Spec)...)
}

// ValidateUpdate adds that the scopes never change.
func (quotaStrategy) ValidateUpdate(obj, old runtime.Object) field.ErrorList {
	q, o := obj.(*corev1.ResourceQuota), old.(*corev1.ResourceQuota)
	errs := ValidateMetaUpdate(&q.ObjectMeta, &o.ObjectMeta)
	errs = append(errs, validateQuotaSpec(&q.Spec)...)
	return append(errs, apimachineryvalidation.ValidateImmutableField(q.Spec.Scopes, o.Spec.Scopes, specPath.Child("scopes"))...)
}

// ValidateStatusUpdate checks status.hard and status.used as spec.hard.
func (quotaStrategy) ValidateStatusUpdate(obj, old runtime.Object) field.ErrorList {
	q := obj.(*corev1.ResourceQuota)
	errs := ValidateMetaUpdate(&q.ObjectMeta, &old.(*corev1.ResourceQuota).ObjectMeta)
	errs = append(errs, validateQuotaAmounts(q.Status.Hard, field.NewPath("status", "hard"))...)
	return append(errs, validateQuotaAmounts(q.Status.Used, field.NewPath("status", "used"))...)
}

func validateQuotaSpec(spec *corev1.ResourceQuotaSpec) field.ErrorList {
	errs := validateQuotaAmounts(spec.Hard, specPath.Child("hard"))
	return append(errs, validateQuotaScopes(spec)...)
}

// standardQuotaResources are the names a quota may use without a domain
// (kube's IsStandardQuotaResourceName).
var standardQuotaResources = []string{
	"pods", "services", "replicationcontrollers", "resourcequotas", "secrets", "configmaps", "persistentvolumeclaims",
	"services.nodeports", "services.loadbalancers", "cpu", "memory", "ephemeral-storage", "storage",
	"requests.cpu", "requests.memory", "requests.ephemeral-storage", "requests.storage",
	"limits.cpu", "limits.memory", "limits.ephemeral-storage",
}

// integerQuotaResources count objects: their amounts are whole.
var integerQuotaResources = []string{"pods", "services", "replicationcontrollers", "resourcequotas", "secrets",
	"configmaps", "persistentvolumeclaims", "services.nodeports", "services.loadbalancers"}

// validateQuotaAmounts checks each resource name and amount, in name
// order.
func validateQuotaAmounts(list corev1.ResourceList, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	names := make([]string, 0, len(list))
	for k := range list {
		names = append(names, string(k))
	}
	sort.Strings(names)
	for _, name := range names {
		p := fldPath.Key(name)
		errs = append(errs, validateQuotaResourceName(name, p)...)
		errs = append(errs, validateQuotaValue(name, list[corev1.ResourceName(name)], p)...)
	}
	return errs
}

func validateQuotaResourceName(name string, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range validation.IsQualifiedName(name) {
		errs = append(errs, field.Invalid(fldPath, name, msg))
	}
	if len(errs) > 0 {
		return errs
	}
	if !strings.Contains(name, "/") && !slices.Contains(standardQuotaResources, name) &&
		!strings.HasPrefix(name, "hugepages-") && !strings.HasPrefix(name, "requests.hugepages-") {
		errs = append(errs, field.Invalid(fldPath, name, "must be a standard resource for quota"))
	}
	return errs
}

func validateQuotaValue(name string, q resource.Quantity, fldPath *field.Path) field.ErrorList {
	if q.Sign() < 0 {
		return field.ErrorList{field.Invalid(fldPath, q.String(), "must be greater than or equal to 0")}
	}
	if (slices.Contains(integerQuotaResources, name) || strings.HasPrefix(name, "count/")) && q.MilliValue()%1000 != 0 {
		return field.ErrorList{field.Invalid(fldPath, q.String(), "must be an integer")}
	}
	return nil
}

// Scopes and the resources each may apply to (kube's
// IsResourceQuotaScopeValidForResource).
var (
	quotaScopes          = []string{"Terminating", "NotTerminating", "BestEffort", "NotBestEffort", "PriorityClass", "CrossNamespacePodAffinity", "VolumeAttributesClass"}
	podCountResources    = []string{"pods"}
	podComputeResources  = []string{"cpu", "memory", "limits.cpu", "limits.memory", "requests.cpu", "requests.memory"}
	volumeClassResources = []string{"persistentvolumeclaims", "requests.storage"}
)

func scopeFitsResource(scope, res string) bool {
	switch scope {
	case "Terminating", "NotTerminating", "NotBestEffort", "PriorityClass", "CrossNamespacePodAffinity":
		return slices.Contains(podCountResources, res) || slices.Contains(podComputeResources, res)
	case "BestEffort":
		return slices.Contains(podCountResources, res)
	case "VolumeAttributesClass":
		return slices.Contains(volumeClassResources, res)
	}
	return true
}

// validateQuotaScopes follows kube's validateResourceQuotaScopes.
func validateQuotaScopes(spec *corev1.ResourceQuotaSpec) field.ErrorList {
	if len(spec.Scopes) == 0 {
		return nil
	}
	var errs field.ErrorList
	fldPath := specPath.Child("scopes")
	var hard []string
	for k := range spec.Hard {
		hard = append(hard, string(k))
	}
	sort.Strings(hard)
	seen := map[string]bool{}
	for _, scope := range spec.Scopes {
		s := string(scope)
		if !slices.Contains(quotaScopes, s) {
			errs = append(errs, field.Invalid(fldPath, spec.Scopes, "unsupported scope"))
		}
		for _, res := range hard {
			if slices.Contains(standardQuotaResources, res) && !scopeFitsResource(s, res) {
				errs = append(errs, field.Invalid(fldPath, spec.Scopes, "unsupported scope applied to resource"))
			}
		}
		seen[s] = true
	}
	if (seen["BestEffort"] && seen["NotBestEffort"]) || (seen["Terminating"] && seen["NotTerminating"]) {
		errs = append(errs, field.Invalid(fldPath, spec.Scopes, "conflicting scopes"))
	}
	return errs
}
