package registry

// StorageClasses (storage.k8s.io/v1): provisioner, parameters and
// policies for dynamically provisioned volumes. No provisioner runs here.
// Reclaim policy Delete and binding mode Immediate by default; the
// provisioner, parameters, reclaim policy and binding mode never change.

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/validate/content"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/miniapi/miniapi/pkg/apiserver/printers"
)

// storageClasses is storage.k8s.io/v1 storageclasses.
func storageClasses() *Resource {
	return &Resource{
		Group: storagev1.GroupName, Version: "v1", Resource: "storageclasses", Kind: "StorageClass", ListKind: "StorageClassList", Singular: "storageclass",
		ShortNames: []string{"sc"},
		New:        func() runtime.Object { return &storagev1.StorageClass{} },
		NewList:    func() runtime.Object { return &storagev1.StorageClassList{} },
		Strategy:   storageClassStrategy{},
		Table:      printers.StorageClasses,
	}
}

// kube's limits on a class's parameters.
const (
	maxStorageParameters     = 512
	maxStorageParametersSize = 256 * (1 << 10)
)

var (
	reclaimPolicies    = []string{string(corev1.PersistentVolumeReclaimDelete), string(corev1.PersistentVolumeReclaimRetain)}
	volumeBindingModes = []string{string(storagev1.VolumeBindingImmediate), string(storagev1.VolumeBindingWaitForFirstConsumer)}
)

type storageClassStrategy struct{}

// PrepareForCreate applies kube's defaults.
func (storageClassStrategy) PrepareForCreate(obj runtime.Object) {
	sc := obj.(*storagev1.StorageClass)
	if sc.ReclaimPolicy == nil {
		p := corev1.PersistentVolumeReclaimDelete
		sc.ReclaimPolicy = &p
	}
	if sc.VolumeBindingMode == nil {
		m := storagev1.VolumeBindingImmediate
		sc.VolumeBindingMode = &m
	}
}

// PrepareForUpdate applies the same defaults.
func (s storageClassStrategy) PrepareForUpdate(obj, old runtime.Object) { s.PrepareForCreate(obj) }

// Validate checks the name and the class's fields.
func (storageClassStrategy) Validate(obj runtime.Object) field.ErrorList {
	sc := obj.(*storagev1.StorageClass)
	errs := ValidateMetaCreate(&sc.ObjectMeta, false, apimachineryvalidation.NameIsDNSSubdomain)
	return append(errs, validateStorageClassFields(sc)...)
}

// ValidateUpdate checks the class as on create, metadata, and the fields
// that never change, in kube's order.
func (storageClassStrategy) ValidateUpdate(obj, old runtime.Object) field.ErrorList {
	sc, o := obj.(*storagev1.StorageClass), old.(*storagev1.StorageClass)
	errs := validateStorageClassFields(sc)
	errs = append(errs, ValidateMetaUpdate(&sc.ObjectMeta, &o.ObjectMeta)...)
	if !apiequality.Semantic.DeepEqual(sc.Parameters, o.Parameters) {
		errs = append(errs, field.Forbidden(field.NewPath("parameters"), "updates to parameters are forbidden."))
	}
	if sc.Provisioner != o.Provisioner {
		errs = append(errs, field.Forbidden(field.NewPath("provisioner"), "updates to provisioner are forbidden."))
	}
	if !apiequality.Semantic.DeepEqual(sc.ReclaimPolicy, o.ReclaimPolicy) {
		errs = append(errs, field.Forbidden(field.NewPath("reclaimPolicy"), "updates to reclaimPolicy are forbidden."))
	}
	return append(errs, apimachineryvalidation.ValidateImmutableField(sc.VolumeBindingMode, o.VolumeBindingMode, field.NewPath("volumeBindingMode"))...)
}

func validateStorageClassFields(sc *storagev1.StorageClass) field.ErrorList {
	var errs field.ErrorList
	prov := field.NewPath("provisioner")
	if sc.Provisioner == "" {
		errs = append(errs, field.Required(prov, ""))
	} else {
		for _, msg := range content.IsLabelKey(strings.ToLower(sc.Provisioner)) {
			errs = append(errs, field.Invalid(prov, sc.Provisioner, msg))
		}
	}
	errs = append(errs, validateStorageParameters(sc.Parameters)...)
	if p := sc.ReclaimPolicy; p != nil && *p != "" && *p != corev1.PersistentVolumeReclaimDelete && *p != corev1.PersistentVolumeReclaimRetain {
		errs = append(errs, field.NotSupported(field.NewPath("reclaimPolicy"), p, reclaimPolicies))
	}
	switch m := sc.VolumeBindingMode; {
	case m == nil:
		errs = append(errs, field.Required(field.NewPath("volumeBindingMode"), ""))
	case *m != storagev1.VolumeBindingImmediate && *m != storagev1.VolumeBindingWaitForFirstConsumer:
		errs = append(errs, field.NotSupported(field.NewPath("volumeBindingMode"), m, volumeBindingModes))
	}
	return append(errs, validateAllowedTopologies(sc.AllowedTopologies)...)
}

func validateStorageParameters(params map[string]string) field.ErrorList {
	path := field.NewPath("parameters")
	if len(params) > maxStorageParameters {
		return field.ErrorList{field.TooLong(path, "", maxStorageParameters)}
	}
	var errs field.ErrorList
	size := 0
	for _, k := range sortedKeys(params) {
		if k == "" {
			errs = append(errs, field.Invalid(path, k, "field can not be empty."))
		}
		size += len(k) + len(params[k])
	}
	if size > maxStorageParametersSize {
		errs = append(errs, field.TooLong(path, "", maxStorageParametersSize))
	}
	return errs
}

// validateAllowedTopologies: each term's keys are label names with at
// least one distinct value, and no term appears twice.
func validateAllowedTopologies(terms []corev1.TopologySelectorTerm) field.ErrorList {
	var errs field.ErrorList
	path := field.NewPath("allowedTopologies")
	var seen []map[string]map[string]bool
	for i, term := range terms {
		exprs := path.Index(i).Child("matchLabelExpressions")
		byKey := map[string]map[string]bool{}
		for j, req := range term.MatchLabelExpressions {
			p := exprs.Index(j)
			values := map[string]bool{}
			if len(req.Values) == 0 {
				errs = append(errs, field.Required(p.Child("values"), ""))
			}
			for k, v := range req.Values {
				if values[v] {
					errs = append(errs, field.Duplicate(p.Child("values").Index(k), v))
				}
				values[v] = true
			}
			errs = append(errs, metav1validation.ValidateLabelName(req.Key, p.Child("key"))...)
			if _, dup := byKey[req.Key]; dup {
				errs = append(errs, field.Duplicate(p.Child("key"), req.Key))
			}
			byKey[req.Key] = values
		}
		for _, earlier := range seen {
			if apiequality.Semantic.DeepEqual(earlier, byKey) {
				errs = append(errs, field.Duplicate(exprs, ""))
			}
		}
		seen = append(seen, byKey)
	}
	return errs
}
