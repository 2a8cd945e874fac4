package crd

import (
	"slices"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// PrepareForCreate does what kube-apiserver's CRD strategy does before a create
// is validated: a client may not write status, so it is reset, and the storage
// version becomes the first entry of status.storedVersions (the record of every
// version objects may still be stored in). metadata.generation is left to the
// registry's generation rule.
func PrepareForCreate(crd *apiextensionsv1.CustomResourceDefinition) {
	crd.Status = apiextensionsv1.CustomResourceDefinitionStatus{}
	recordStorageVersion(crd)
}

// PrepareForUpdate does what kube-apiserver's CRD strategy does before an update
// of the main resource is validated: status is kept from the stored object, and a
// new storage version is appended to status.storedVersions (the old one stays
// until a storage migration removes it through /status).
func PrepareForUpdate(crd, old *apiextensionsv1.CustomResourceDefinition) {
	crd.Status = *old.Status.DeepCopy()
	recordStorageVersion(crd)
}

// recordStorageVersion appends the first version marked storage to
// status.storedVersions unless it is there already.
func recordStorageVersion(crd *apiextensionsv1.CustomResourceDefinition) {
	for _, v := range crd.Spec.Versions {
		if !v.Storage {
			continue
		}
		if !slices.Contains(crd.Status.StoredVersions, v.Name) {
			crd.Status.StoredVersions = append(crd.Status.StoredVersions, v.Name)
		}
		return
	}
}
