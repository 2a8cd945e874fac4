package registry

// Shared rules for object metadata, as kube-apiserver applies them to
// every kind: name syntax, namespace presence, labels, annotations,
// owner references, finalizers, and on update the fields that may never
// change.

import (
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

var metadataPath = field.NewPath("metadata")

// ValidateMetaCreate checks a new object's metadata. namespaced says
// whether the kind lives in a namespace (namespace required) or not
// (namespace forbidden); nameFn is the kind's name rule.
func ValidateMetaCreate(m *metav1.ObjectMeta, namespaced bool, nameFn apimachineryvalidation.ValidateNameFunc) field.ErrorList {
	return apimachineryvalidation.ValidateObjectMeta(m, namespaced, nameFn, metadataPath)
}

// ValidateMetaUpdate checks metadata on update: name, namespace, uid and
// creationTimestamp are immutable, labels and annotations stay valid.
//
// kube-apiserver fills resourceVersion (unconditional updates), uid,
// creationTimestamp and generation from the stored object before it
// validates; the handlers here may do so after calling us, so the same
// filling is done on a copy first. Otherwise a PUT without those fields
// would be refused although kube-apiserver accepts it.
func ValidateMetaUpdate(m, old *metav1.ObjectMeta) field.ErrorList {
	filled := m.DeepCopy()
	if filled.ResourceVersion == "" {
		filled.ResourceVersion = old.ResourceVersion
	}
	if filled.UID == "" {
		filled.UID = old.UID
	}
	if filled.CreationTimestamp.IsZero() {
		filled.CreationTimestamp = old.CreationTimestamp
	}
	if filled.Generation < old.Generation {
		filled.Generation = old.Generation
	}
	if old.DeletionTimestamp != nil {
		filled.DeletionTimestamp = old.DeletionTimestamp
		filled.DeletionGracePeriodSeconds = old.DeletionGracePeriodSeconds
	}
	if filled.ResourceVersion == "" {
		// Neither side has one (unit tests, dry runs of fresh objects):
		// the "must be specified" rule is the handler's to enforce.
		filled.ResourceVersion = "0"
	}
	return apimachineryvalidation.ValidateObjectMetaUpdate(filled, old, metadataPath)
}

// metaFields is what every kind's field selectors offer: metadata.name,
// and metadata.namespace for namespaced kinds (as kube-apiserver's
// generic.ObjectMetaFieldsSet).
func metaFields(m metav1.Object, namespaced bool) fields.Set {
	s := fields.Set{"metadata.name": m.GetName()}
	if namespaced {
		s["metadata.namespace"] = m.GetNamespace()
	}
	return s
}

// mergeFields adds extra's entries to base and returns it.
func mergeFields(base, extra fields.Set) fields.Set {
	for k, v := range extra {
		base[k] = v
	}
	return base
}
