package registry

// LimitRanges: stored, with kube's defaults for Container limits (the
// default limit from max, the default request from the default limit or
// min) and kube's validation. New pods and claims meet them through the
// LimitRanger admission hooks (limitranger.go).

import (
	"fmt"
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

// limitRanges is core/v1 limitranges.
func limitRanges() *Resource {
	return &Resource{
		Version: "v1", Resource: "limitranges", Kind: "LimitRange", ListKind: "LimitRangeList",
		Singular: "limitrange", ShortNames: []string{"limits"}, Namespaced: true,
		New:      func() runtime.Object { return &corev1.LimitRange{} },
		NewList:  func() runtime.Object { return &corev1.LimitRangeList{} },
		Strategy: limitRangeStrategy{},
		Table:    printers.LimitRanges,
	}
}

type limitRangeStrategy struct{}

func (limitRangeStrategy) PrepareForCreate(obj runtime.Object) {
	defaultLimitRange(obj.(*corev1.LimitRange))
}

func (limitRangeStrategy) PrepareForUpdate(obj, old runtime.Object) {
	defaultLimitRange(obj.(*corev1.LimitRange))
}

func (limitRangeStrategy) Validate(obj runtime.Object) field.ErrorList {
	lr := obj.(*corev1.LimitRange)
	errs := ValidateMetaCreate(&lr.ObjectMeta, true, apimachineryvalidation.NameIsDNSSubdomain)
	return append(errs, validateLimits(lr.Spec.Limits)...)
}

func (limitRangeStrategy) ValidateUpdate(obj, old runtime.Object) field.ErrorList {
	lr := obj.(*corev1.LimitRange)
	errs := ValidateMetaUpdate(&lr.ObjectMeta, &old.(*corev1.LimitRange).ObjectMeta)
	return append(errs, validateLimits(lr.Spec.Limits)...)
}

// defaultLimitRange is kube's SetDefaults_LimitRangeItem for Container
// items.
func defaultLimitRange(lr *corev1.LimitRange) {
	for i := range lr.Spec.Limits {
		item := &lr.Spec.Limits[i]
		if item.Type != corev1.LimitTypeContainer {
			continue
		}
		if item.Default == nil {
			item.Default = corev1.ResourceList{}
		}
		if item.DefaultRequest == nil {
			item.DefaultRequest = corev1.ResourceList{}
		}
		fill := func(dst, src corev1.ResourceList) {
			for k, v := range src {
				if _, ok := dst[k]; !ok {
					dst[k] = v.DeepCopy()
				}
			}
		}
		fill(item.Default, item.Max)
		fill(item.DefaultRequest, item.Default)
		fill(item.DefaultRequest, item.Min)
	}
}

var limitTypes = []corev1.LimitType{corev1.LimitTypePod, corev1.LimitTypeContainer, corev1.LimitTypePersistentVolumeClaim}

// validateLimits follows kube's ValidateLimitRange item by item.
func validateLimits(limits []corev1.LimitRangeItem) field.ErrorList {
	var errs field.ErrorList
	fldPath := field.NewPath("spec", "limits")
	seenTypes := map[corev1.LimitType]bool{}
	for i := range limits {
		item, p := &limits[i], fldPath.Index(i)
		errs = append(errs, validateLimitType(string(item.Type), p.Child("type"))...)
		if seenTypes[item.Type] {
			errs = append(errs, field.Duplicate(p.Child("type"), item.Type))
		}
		seenTypes[item.Type] = true
		for _, part := range []struct {
			name string
			list corev1.ResourceList
		}{{"max", item.Max}, {"min", item.Min}, {"default", item.Default}, {"defaultRequest", item.DefaultRequest}, {"maxLimitRequestRatio", item.MaxLimitRequestRatio}} {
			if item.Type == corev1.LimitTypePod && (part.name == "default" || part.name == "defaultRequest") {
				if len(part.list) > 0 {
					errs = append(errs, field.Forbidden(p.Child(part.name), "may not be specified when `type` is 'Pod'"))
				}
				continue
			}
			for _, k := range sortedResourceNames(part.list) {
				errs = append(errs, validateLimitResourceName(k, p.Child(part.name).Key(k))...)
			}
		}
		if item.Type == corev1.LimitTypePersistentVolumeClaim {
			_, hasMin := item.Min[corev1.ResourceStorage]
			_, hasMax := item.Max[corev1.ResourceStorage]
			if !hasMin && !hasMax {
				errs = append(errs, field.Required(p.Child("limits"), "either minimum or maximum storage value is required, but neither was provided"))
			}
		}
		errs = append(errs, validateLimitBounds(item, p)...)
	}
	return errs
}

func validateLimitType(t string, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range validation.IsQualifiedName(t) {
		errs = append(errs, field.Invalid(fldPath, t, msg))
	}
	if len(errs) > 0 || strings.Contains(t, "/") {
		return errs
	}
	for _, known := range limitTypes {
		if string(known) == t {
			return nil
		}
	}
	return field.ErrorList{field.Invalid(fldPath, t, "must be a standard limit type or fully qualified")}
}

func validateLimitResourceName(name string, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range validation.IsQualifiedName(name) {
		errs = append(errs, field.Invalid(fldPath, name, msg))
	}
	if len(errs) > 0 || strings.Contains(name, "/") || strings.HasPrefix(name, "hugepages-") {
		return errs
	}
	switch corev1.ResourceName(name) {
	case corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourceEphemeralStorage, corev1.ResourceStorage:
		return nil
	}
	return field.ErrorList{field.Invalid(fldPath, name, "must be a standard resource type or fully qualified")}
}

// validateLimitBounds compares min, max, default and defaultRequest of
// each resource, with kube's messages (which for default > max show the
// max as the value).
func validateLimitBounds(item *corev1.LimitRangeItem, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	keys := map[string]bool{}
	for _, l := range []corev1.ResourceList{item.Max, item.Min, item.Default, item.DefaultRequest, item.MaxLimitRequestRatio} {
		for k := range l {
			keys[string(k)] = true
		}
	}
	names := make([]string, 0, len(keys))
	for k := range keys {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		rn := corev1.ResourceName(k)
		minQ, hasMin := item.Min[rn]
		maxQ, hasMax := item.Max[rn]
		def, hasDef := item.Default[rn]
		req, hasReq := item.DefaultRequest[rn]
		ratio, hasRatio := item.MaxLimitRequestRatio[rn]
		bad := func(part string, v resource.Quantity, format string, a, b resource.Quantity) {
			errs = append(errs, field.Invalid(p.Child(part).Key(k), v.String(), fmt.Sprintf(format, a.String(), b.String())))
		}
		if hasMin && hasMax && minQ.Cmp(maxQ) > 0 {
			bad("min", minQ, "min value %s is greater than max value %s", minQ, maxQ)
		}
		if hasReq && hasMin && minQ.Cmp(req) > 0 {
			bad("defaultRequest", req, "min value %s is greater than default request value %s", minQ, req)
		}
		if hasReq && hasMax && req.Cmp(maxQ) > 0 {
			bad("defaultRequest", req, "default request value %s is greater than max value %s", req, maxQ)
		}
		if hasReq && hasDef && req.Cmp(def) > 0 {
			bad("defaultRequest", req, "default request value %s is greater than default limit value %s", req, def)
		}
		if hasDef && hasMin && minQ.Cmp(def) > 0 {
			bad("default", minQ, "min value %s is greater than default value %s", minQ, def)
		}
		if hasDef && hasMax && def.Cmp(maxQ) > 0 {
			bad("default", maxQ, "default value %s is greater than max value %s", def, maxQ)
		}
		if hasRatio && ratio.Cmp(*resource.NewQuantity(1, resource.DecimalSI)) < 0 {
			errs = append(errs, field.Invalid(p.Child("maxLimitRequestRatio").Key(k), ratio.String(), fmt.Sprintf("ratio %s is less than 1", ratio.String())))
		}
	}
	return errs
}

func sortedResourceNames(l corev1.ResourceList) []string {
	out := make([]string, 0, len(l))
	for k := range l {
		out = append(out, string(k))
	}
	sort.Strings(out)
	return out
}
