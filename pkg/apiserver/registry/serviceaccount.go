package registry

// ServiceAccounts: a DNS subdomain name, and secret references reduced to
// their names, as kube-apiserver stores them. The serviceaccount
// controller keeps a "default" one in every namespace.

import (
	corev1 "k8s.io/api/core/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/miniapi/miniapi/pkg/apiserver/printers"
)

// serviceAccounts is core/v1 serviceaccounts.
func serviceAccounts() *Resource {
	return &Resource{
		Version: "v1", Resource: "serviceaccounts", Kind: "ServiceAccount", ListKind: "ServiceAccountList", Singular: "serviceaccount",
		ShortNames: []string{"sa"}, Namespaced: true,
		New:     func() runtime.Object { return &corev1.ServiceAccount{} },
		NewList: func() runtime.Object { return &corev1.ServiceAccountList{} },

		Strategy: serviceAccountStrategy{},
		Table:    printers.ServiceAccounts,
	}
}

type serviceAccountStrategy struct{}

// cleanSecretReferences keeps only the name of each secret reference: the
// rest of an ObjectReference means nothing here (the namespace is the
// ServiceAccount's own).
func cleanSecretReferences(sa *corev1.ServiceAccount) {
	for i, ref := range sa.Secrets {
		sa.Secrets[i] = corev1.ObjectReference{Name: ref.Name}
	}
}

// PrepareForCreate cleans the secret references.
func (serviceAccountStrategy) PrepareForCreate(obj runtime.Object) {
	cleanSecretReferences(obj.(*corev1.ServiceAccount))
}

// PrepareForUpdate cleans the secret references.
func (serviceAccountStrategy) PrepareForUpdate(obj, _ runtime.Object) {
	cleanSecretReferences(obj.(*corev1.ServiceAccount))
}

// Validate checks a new ServiceAccount: only its metadata has rules.
func (serviceAccountStrategy) Validate(obj runtime.Object) field.ErrorList {
	sa := obj.(*corev1.ServiceAccount)
	return ValidateMetaCreate(&sa.ObjectMeta, true, apimachineryvalidation.NameIsDNSSubdomain)
}

// ValidateUpdate checks metadata.
func (serviceAccountStrategy) ValidateUpdate(obj, old runtime.Object) field.ErrorList {
	return ValidateMetaUpdate(&obj.(*corev1.ServiceAccount).ObjectMeta, &old.(*corev1.ServiceAccount).ObjectMeta)
}
