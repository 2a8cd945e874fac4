package crd

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/miniapi/miniapi/pkg/apiserver/printers"
	"github.com/miniapi/miniapi/pkg/apiserver/registry"
)

// The handlers decode and encode (JSON, YAML, protobuf) through
// client-go's scheme, which does not know the apiextensions types.
// Registering them there is what the apiextensions clientset does too; it
// only adds types, so servers in one process cannot disagree about it.
func init() { utilruntime.Must(apiextensionsv1.AddToScheme(scheme.Scheme)) }

// GroupVersionResource is where CRDs are served.
var GroupVersionResource = schema.GroupVersionResource{Group: apiextensionsv1.GroupName, Version: "v1", Resource: "customresourcedefinitions"}

// CleanupFinalizer keeps a deleted CRD until its custom resources are
// gone, as kube-apiserver's finalizer of the same name does.
const CleanupFinalizer = "customresourcecleanup.apiextensions.k8s.io"

// Resource is apiextensions.k8s.io/v1 customresourcedefinitions.
func Resource() *registry.Resource {
	s := strategy{}
	return &registry.Resource{
		Group: GroupVersionResource.Group, Version: "v1", Resource: GroupVersionResource.Resource,
		Kind: "CustomResourceDefinition", ListKind: "CustomResourceDefinitionList", Singular: "customresourcedefinition",
		ShortNames: []string{"crd", "crds"}, Categories: []string{"api-extensions"},
		New:     func() runtime.Object { return &apiextensionsv1.CustomResourceDefinition{} },
		NewList: func() runtime.Object { return &apiextensionsv1.CustomResourceDefinitionList{} },

		Strategy: s,
		Subresources: map[string]*registry.Subresource{
			"status": {PrepareForUpdate: s.PrepareForStatusUpdate, ValidateUpdate: s.ValidateStatusUpdate},
		},
		Generation: s.GenerationChanged,
		Delete:     cleanupFirst{},
		Table:      printers.CustomResourceDefinitions,
	}
}
