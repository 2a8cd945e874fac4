package registry

// PersistentVolumeClaims: stored only (no volume binder), so a claim
// stays Pending. As in kube-apiserver, admission adds the
// kubernetes.io/pvc-protection finalizer, volumeMode defaults to
// Filesystem, and the spec is immutable after create except what a
// binder or a resize may change.

import (
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/diff"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/miniapi/miniapi/pkg/apiserver/printers"
)

// PVCProtectionFinalizer keeps a claim while a pod uses it.
const PVCProtectionFinalizer = "kubernetes.io/pvc-protection"

// persistentVolumeClaims is core/v1 persistentvolumeclaims. With a
// store, a new claim gets the default StorageClass
// (defaultStorageClass) and is held against the LimitRanges of its
// namespace (limitRanger).
func persistentVolumeClaims(opts Options) *Resource {
	s := pvcStrategy{}
	return &Resource{
		Version: "v1", Resource: "persistentvolumeclaims", Kind: "PersistentVolumeClaim", ListKind: "PersistentVolumeClaimList",
		Singular: "persistentvolumeclaim", ShortNames: []string{"pvc"}, Namespaced: true,
		New:      func() runtime.Object { return &corev1.PersistentVolumeClaim{} },
		NewList:  func() runtime.Object { return &corev1.PersistentVolumeClaimList{} },
		Strategy: s,
		Subresources: map[string]*Subresource{
			"status": {PrepareForUpdate: s.PrepareForStatusUpdate, ValidateUpdate: s.ValidateStatusUpdate},
		},
		Hooks: chain(newDefaultStorageClass(opts.Store), newLimitRanger(opts.Store)),
		Table: printers.PersistentVolumeClaims,
	}
}

type pvcStrategy struct{}

func defaultPVC(pvc *corev1.PersistentVolumeClaim) {
	if pvc.Spec.VolumeMode == nil {
		fs := corev1.PersistentVolumeFilesystem
		pvc.Spec.VolumeMode = &fs
	}
}

// PrepareForCreate resets status to Pending, applies defaults and adds
// the protection finalizer (kube's StorageObjectInUseProtection).
func (pvcStrategy) PrepareForCreate(obj runtime.Object) {
	pvc := obj.(*corev1.PersistentVolumeClaim)
	pvc.Status = corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimPending}
	defaultPVC(pvc)
	addFinalizer(&pvc.ObjectMeta, PVCProtectionFinalizer)
}

// PrepareForUpdate keeps the stored status.
func (pvcStrategy) PrepareForUpdate(obj, old runtime.Object) {
	pvc := obj.(*corev1.PersistentVolumeClaim)
	pvc.Status = old.(*corev1.PersistentVolumeClaim).Status
	defaultPVC(pvc)
}

// PrepareForStatusUpdate keeps the stored spec.
func (pvcStrategy) PrepareForStatusUpdate(obj, old runtime.Object) {
	obj.(*corev1.PersistentVolumeClaim).Spec = old.(*corev1.PersistentVolumeClaim).Spec
}

// Validate checks a new claim.
func (pvcStrategy) Validate(obj runtime.Object) field.ErrorList {
	pvc := obj.(*corev1.PersistentVolumeClaim)
	errs := ValidateMetaCreate(&pvc.ObjectMeta, true, apimachineryvalidation.NameIsDNSSubdomain)
	return append(errs, validatePVCSpec(&pvc.Spec, specPath)...)
}

// ValidateUpdate: the spec may change only where kube allows it (a
// volumeName set once, a class set once on an unbound claim, a bound
// claim's storage request and volume attributes class).
func (pvcStrategy) ValidateUpdate(obj, old runtime.Object) field.ErrorList {
	pvc, o := obj.(*corev1.PersistentVolumeClaim), old.(*corev1.PersistentVolumeClaim)
	errs := ValidateMetaUpdate(&pvc.ObjectMeta, &o.ObjectMeta)
	errs = append(errs, validatePVCSpec(&pvc.Spec, specPath)...)
	newSpec, oldSpec := pvc.Spec.DeepCopy(), o.Spec.DeepCopy()
	if oldSpec.VolumeName == "" {
		oldSpec.VolumeName = newSpec.VolumeName
	}
	if oldSpec.StorageClassName == nil && newSpec.StorageClassName != nil && o.Spec.VolumeName == "" {
		oldSpec.StorageClassName = newSpec.StorageClassName
	}
	if pvc.Status.Phase == corev1.ClaimBound {
		if newSpec.Resources.Requests != nil {
			newSpec.Resources.Requests[corev1.ResourceStorage] = o.Spec.Resources.Requests[corev1.ResourceStorage]
		}
		newSpec.VolumeAttributesClassName = oldSpec.VolumeAttributesClassName
	}
	if !apiequality.Semantic.DeepEqual(newSpec, oldSpec) {
		msg := "spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims\n" +
			diff.Diff(pvcSpecShown(oldSpec), pvcSpecShown(newSpec))
		errs = append(errs, field.Forbidden(specPath, msg))
	}
	return errs
}

// ValidateStatusUpdate checks the phase and the capacity.
func (pvcStrategy) ValidateStatusUpdate(obj, old runtime.Object) field.ErrorList {
	pvc := obj.(*corev1.PersistentVolumeClaim)
	errs := ValidateMetaUpdate(&pvc.ObjectMeta, &old.(*corev1.PersistentVolumeClaim).ObjectMeta)
	errs = append(errs, validateAccessModes(pvc.Status.AccessModes, field.NewPath("status", "accessModes"), false)...)
	for name, q := range pvc.Status.Capacity {
		errs = append(errs, nonNegativeQuantity(q, field.NewPath("status", "capacity").Key(string(name)))...)
	}
	return errs
}

// validatePVCSpec follows kube's ValidatePersistentVolumeClaimSpec.
func validatePVCSpec(spec *corev1.PersistentVolumeClaimSpec, fldPath *field.Path) field.ErrorList {
	errs := validateAccessModes(spec.AccessModes, fldPath.Child("accessModes"), true)
	if spec.Selector != nil {
		errs = append(errs, metav1validation.ValidateLabelSelector(spec.Selector, metav1validation.LabelSelectorValidationOptions{}, fldPath.Child("selector"))...)
	}
	storagePath := fldPath.Child("resources").Key(string(corev1.ResourceStorage))
	storage, ok := spec.Resources.Requests[corev1.ResourceStorage]
	switch {
	case !ok:
		errs = append(errs, field.Required(storagePath, ""))
	case storage.Sign() <= 0:
		errs = append(errs, field.Invalid(storagePath, storage.String(), "must be greater than zero"))
	}
	if c := spec.StorageClassName; c != nil && *c != "" {
		errs = append(errs, validateDNSSubdomain(*c, fldPath.Child("storageClassName"))...)
	}
	if m := spec.VolumeMode; m != nil && *m != corev1.PersistentVolumeBlock && *m != corev1.PersistentVolumeFilesystem {
		errs = append(errs, field.NotSupported(fldPath.Child("volumeMode"), *m, []string{string(corev1.PersistentVolumeBlock), string(corev1.PersistentVolumeFilesystem)}))
	}
	return errs
}

// pvcSpecForMessages is a claim's spec as kube-apiserver prints it in
// the immutability diff: its internal type, without JSON names.
type pvcSpecForMessages struct {
	AccessModes []corev1.PersistentVolumeAccessMode
	Selector    *metav1.LabelSelector
	Resources   struct {
		Limits   corev1.ResourceList
		Requests corev1.ResourceList
	}
	VolumeName       string
	StorageClassName *string
	VolumeMode       *corev1.PersistentVolumeMode
	DataSource       *struct {
		APIGroup   *string
		Kind, Name string
	}
	DataSourceRef *struct {
		APIGroup   *string
		Kind, Name string
		Namespace  *string
	}
	VolumeAttributesClassName *string
}

func pvcSpecShown(s *corev1.PersistentVolumeClaimSpec) pvcSpecForMessages {
	out := pvcSpecForMessages{AccessModes: s.AccessModes, Selector: s.Selector, VolumeName: s.VolumeName,
		StorageClassName: s.StorageClassName, VolumeMode: s.VolumeMode, VolumeAttributesClassName: s.VolumeAttributesClassName}
	out.Resources.Limits, out.Resources.Requests = s.Resources.Limits, s.Resources.Requests
	if d := s.DataSource; d != nil {
		out.DataSource = &struct {
			APIGroup   *string
			Kind, Name string
		}{d.APIGroup, d.Kind, d.Name}
	}
	if d := s.DataSourceRef; d != nil {
		out.DataSourceRef = &struct {
			APIGroup   *string
			Kind, Name string
			Namespace  *string
		}{d.APIGroup, d.Kind, d.Name, d.Namespace}
	}
	return out
}

// validAccessModes are the access modes kube knows, sorted as its
// message lists them.
var validAccessModes = []string{string(corev1.ReadOnlyMany), string(corev1.ReadWriteMany), string(corev1.ReadWriteOnce), string(corev1.ReadWriteOncePod)}

// validateAccessModes: known modes, ReadWriteOncePod alone, and (for
// specs) at least one.
func validateAccessModes(modes []corev1.PersistentVolumeAccessMode, fldPath *field.Path, required bool) field.ErrorList {
	var errs field.ErrorList
	if required && len(modes) == 0 {
		errs = append(errs, field.Required(fldPath, "at least 1 access mode is required"))
	}
	rwop := false
	for _, m := range modes {
		switch m {
		case corev1.ReadWriteOnce, corev1.ReadOnlyMany, corev1.ReadWriteMany:
		case corev1.ReadWriteOncePod:
			rwop = true
		default:
			errs = append(errs, field.NotSupported(fldPath, m, validAccessModes))
		}
	}
	if rwop && len(modes) > 1 {
		errs = append(errs, field.Forbidden(fldPath, "may not use ReadWriteOncePod with other access modes"))
	}
	return errs
}

func nonNegativeQuantity(q resource.Quantity, fldPath *field.Path) field.ErrorList {
	if q.Sign() < 0 {
		return field.ErrorList{field.Invalid(fldPath, q.String(), "must be greater than or equal to 0")}
	}
	return nil
}

func validateDNSSubdomain(name string, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(name, false) {
		errs = append(errs, field.Invalid(fldPath, name, msg))
	}
	return errs
}

// addFinalizer adds f once.
func addFinalizer(m *metav1.ObjectMeta, f string) {
	for _, x := range m.Finalizers {
		if x == f {
			return
		}
	}
	m.Finalizers = append(m.Finalizers, f)
}
