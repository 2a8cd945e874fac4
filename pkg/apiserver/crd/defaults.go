package crd

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// SetDefaults fills in what kube-apiserver fills in when it decodes a v1
// CustomResourceDefinition: names.singular (the lower-case kind), names.listKind
// (<kind>List), conversion.strategy None, port 443 for a webhook service, and
// status.storedVersions from the storage version when empty. The library's
// generated defaulters are the source, so that every defaulted field follows kube.
func SetDefaults(crd *apiextensionsv1.CustomResourceDefinition) {
	apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(crd)
}
