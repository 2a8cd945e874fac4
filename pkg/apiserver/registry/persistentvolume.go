package registry

// PersistentVolumes: cluster-scoped, stored only (no binder or
// provisioner), so a volume stays Pending until something binds it. As
// in kube-apiserver: the kubernetes.io/pv-protection finalizer from
// admission, reclaim policy Retain and volumeMode Filesystem by default,
// and exactly one volume source.

import (
	"reflect"

	corev1 "k8s.io/api/core/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/miniapi/miniapi/pkg/apiserver/printers"
)

// PVProtectionFinalizer keeps a volume while a claim is bound to it.
const PVProtectionFinalizer = "kubernetes.io/pv-protection"

// persistentVolumes is core/v1 persistentvolumes.
func persistentVolumes() *Resource {
	s := pvStrategy{}
	return &Resource{
		Version: "v1", Resource: "persistentvolumes", Kind: "PersistentVolume", ListKind: "PersistentVolumeList",
		Singular: "persistentvolume", ShortNames: []string{"pv"},
		New:      func() runtime.Object { return &corev1.PersistentVolume{} },
		NewList:  func() runtime.Object { return &corev1.PersistentVolumeList{} },
		Strategy: s,
		Subresources: map[string]*Subresource{
			"status": {PrepareForUpdate: s.PrepareForStatusUpdate, ValidateUpdate: s.ValidateStatusUpdate},
		},
		Table: printers.PersistentVolumes,
	}
}

type pvStrategy struct{}

func defaultPV(pv *corev1.PersistentVolume) {
	if pv.Spec.PersistentVolumeReclaimPolicy == "" {
		pv.Spec.PersistentVolumeReclaimPolicy = corev1.PersistentVolumeReclaimRetain
	}
	if pv.Spec.VolumeMode == nil {
		fs := corev1.PersistentVolumeFilesystem
		pv.Spec.VolumeMode = &fs
	}
}

// PrepareForCreate starts the volume Pending, with defaults and the
// protection finalizer.
func (pvStrategy) PrepareForCreate(obj runtime.Object) {
	pv := obj.(*corev1.PersistentVolume)
	pv.Status = corev1.PersistentVolumeStatus{Phase: corev1.VolumePending}
	defaultPV(pv)
	addFinalizer(&pv.ObjectMeta, PVProtectionFinalizer)
}

// PrepareForUpdate keeps the stored status.
func (pvStrategy) PrepareForUpdate(obj, old runtime.Object) {
	pv := obj.(*corev1.PersistentVolume)
	pv.Status = old.(*corev1.PersistentVolume).Status
	defaultPV(pv)
}

// PrepareForStatusUpdate keeps the stored spec.
func (pvStrategy) PrepareForStatusUpdate(obj, old runtime.Object) {
	obj.(*corev1.PersistentVolume).Spec = old.(*corev1.PersistentVolume).Spec
}

func (pvStrategy) Validate(obj runtime.Object) field.ErrorList {
	pv := obj.(*corev1.PersistentVolume)
	errs := ValidateMetaCreate(&pv.ObjectMeta, false, apimachineryvalidation.NameIsDNSSubdomain)
	return append(errs, validatePVSpec(&pv.Spec)...)
}

func (pvStrategy) ValidateUpdate(obj, old runtime.Object) field.ErrorList {
	pv, o := obj.(*corev1.PersistentVolume), old.(*corev1.PersistentVolume)
	errs := ValidateMetaUpdate(&pv.ObjectMeta, &o.ObjectMeta)
	errs = append(errs, validatePVSpec(&pv.Spec)...)
	if !reflect.DeepEqual(pv.Spec.PersistentVolumeSource, o.Spec.PersistentVolumeSource) {
		errs = append(errs, field.Forbidden(specPath.Child("persistentvolumesource"), "spec.persistentvolumesource is immutable after creation"))
	}
	errs = append(errs, apimachineryvalidation.ValidateImmutableField(pv.Spec.VolumeMode, o.Spec.VolumeMode, specPath.Child("volumeMode"))...)
	return errs
}

func (pvStrategy) ValidateStatusUpdate(obj, old runtime.Object) field.ErrorList {
	pv := obj.(*corev1.PersistentVolume)
	return ValidateMetaUpdate(&pv.ObjectMeta, &old.(*corev1.PersistentVolume).ObjectMeta)
}

// volumeReclaimPolicies are what a PersistentVolume may have, sorted as
// kube's message lists them.
var volumeReclaimPolicies = []string{string(corev1.PersistentVolumeReclaimDelete), string(corev1.PersistentVolumeReclaimRecycle), string(corev1.PersistentVolumeReclaimRetain)}

// validatePVSpec follows kube's ValidatePersistentVolumeSpec for what a
// user meets: access modes, a storage capacity, a reclaim policy and one
// volume source.
func validatePVSpec(spec *corev1.PersistentVolumeSpec) field.ErrorList {
	errs := validateAccessModes(spec.AccessModes, specPath.Child("accessModes"), true)
	capPath := specPath.Child("capacity")
	if len(spec.Capacity) == 0 {
		errs = append(errs, field.Required(capPath, ""))
	} else if _, ok := spec.Capacity[corev1.ResourceStorage]; !ok || len(spec.Capacity) > 1 {
		var keys []string
		for k := range spec.Capacity {
			keys = append(keys, string(k))
		}
		errs = append(errs, field.NotSupported(capPath, keys, []string{string(corev1.ResourceStorage)}))
	}
	for name, q := range spec.Capacity {
		if q.Sign() <= 0 {
			errs = append(errs, field.Invalid(capPath.Key(string(name)), q.String(), "must be greater than zero"))
		}
	}
	switch spec.PersistentVolumeReclaimPolicy {
	case corev1.PersistentVolumeReclaimDelete, corev1.PersistentVolumeReclaimRecycle, corev1.PersistentVolumeReclaimRetain:
	default:
		errs = append(errs, field.NotSupported(specPath.Child("persistentVolumeReclaimPolicy"), spec.PersistentVolumeReclaimPolicy, volumeReclaimPolicies))
	}
	if c := spec.StorageClassName; c != "" {
		errs = append(errs, validateDNSSubdomain(c, specPath.Child("storageClassName"))...)
	}
	sources := setVolumeSources(&spec.PersistentVolumeSource)
	switch {
	case len(sources) == 0:
		errs = append(errs, field.Required(specPath, "must specify a volume type"))
	case len(sources) > 1:
		for _, name := range sources[1:] {
			errs = append(errs, field.Forbidden(specPath.Child(name), "may not specify more than 1 volume type"))
		}
	}
	if hp := spec.HostPath; hp != nil && hp.Path == "" {
		errs = append(errs, field.Required(specPath.Child("hostPath", "path"), ""))
	}
	if l := spec.Local; l != nil && l.Path == "" {
		errs = append(errs, field.Required(specPath.Child("local", "path"), ""))
	}
	return errs
}

// setVolumeSources names the volume sources set, by their JSON names.
func setVolumeSources(src *corev1.PersistentVolumeSource) []string {
	var names []string
	v := reflect.ValueOf(src).Elem()
	for i := 0; i < v.NumField(); i++ {
		if f := v.Field(i); f.Kind() == reflect.Pointer && !f.IsNil() {
			tag := v.Type().Field(i).Tag.Get("json")
			for j, c := range tag {
				if c == ',' {
					tag = tag[:j]
					break
				}
			}
			names = append(names, tag)
		}
	}
	return names
}
