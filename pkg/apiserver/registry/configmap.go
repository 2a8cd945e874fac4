package registry

// ConfigMaps: keys must be config keys, a key may not be in both data and
// binaryData, the whole payload fits in 1 MiB, and a ConfigMap marked
// immutable keeps its data, binaryData and immutable flag for good.

import (
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/miniapi/miniapi/pkg/apiserver/printers"
)

// configMaps is core/v1 configmaps.
func configMaps() *Resource {
	return &Resource{
		Version: "v1", Resource: "configmaps", Kind: "ConfigMap", ListKind: "ConfigMapList", Singular: "configmap",
		ShortNames: []string{"cm"}, Namespaced: true,
		New:     func() runtime.Object { return &corev1.ConfigMap{} },
		NewList: func() runtime.Object { return &corev1.ConfigMapList{} },

		Strategy: configMapStrategy{},
		Table:    printers.ConfigMaps,
	}
}

type configMapStrategy struct{}

// PrepareForCreate: a ConfigMap has no status and no defaults.
func (configMapStrategy) PrepareForCreate(obj runtime.Object) {}

// PrepareForUpdate: every field may be written (validation guards the
// immutable ones).
func (configMapStrategy) PrepareForUpdate(obj, old runtime.Object) {}

// Validate checks a new ConfigMap, in kube-apiserver's order: metadata,
// data keys, binaryData keys, then the total size.
func (configMapStrategy) Validate(obj runtime.Object) field.ErrorList {
	cm := obj.(*corev1.ConfigMap)
	errs := ValidateMetaCreate(&cm.ObjectMeta, true, apimachineryvalidation.NameIsDNSSubdomain)
	return append(errs, validateConfigMapData(cm)...)
}

// ValidateUpdate adds the immutable rule to metadata and data checks.
func (configMapStrategy) ValidateUpdate(obj, old runtime.Object) field.ErrorList {
	cm, o := obj.(*corev1.ConfigMap), old.(*corev1.ConfigMap)
	errs := ValidateMetaUpdate(&cm.ObjectMeta, &o.ObjectMeta)
	if isTrue(o.Immutable) {
		errs = append(errs, immutableFlagKept(cm.Immutable)...)
		if !apiequality.Semantic.DeepEqual(cm.Data, o.Data) {
			errs = append(errs, forbiddenWhenImmutable(field.NewPath("data")))
		}
		if !apiequality.Semantic.DeepEqual(cm.BinaryData, o.BinaryData) {
			errs = append(errs, forbiddenWhenImmutable(field.NewPath("binaryData")))
		}
	}
	return append(errs, validateConfigMapData(cm)...)
}

func validateConfigMapData(cm *corev1.ConfigMap) field.ErrorList {
	var errs field.ErrorList
	size := 0
	dataPath, binaryPath := field.NewPath("data"), field.NewPath("binaryData")
	for _, key := range sortedKeys(cm.Data) {
		errs = append(errs, validateConfigKey(dataPath, key)...)
		if _, dup := cm.BinaryData[key]; dup {
			errs = append(errs, field.Invalid(dataPath.Key(key), key, "duplicate of key present in binaryData"))
		}
		size += len(cm.Data[key])
	}
	for _, key := range sortedKeys(cm.BinaryData) {
		errs = append(errs, validateConfigKey(binaryPath, key)...)
		size += len(cm.BinaryData[key])
	}
	if size > corev1.MaxSecretSize {
		// An empty path: the error is about the whole object, as kube's.
		errs = append(errs, field.TooLong(field.NewPath(""), "", corev1.MaxSecretSize))
	}
	return errs
}
