package testenvbench

import (
	"fmt"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

const crdGroup = "bench.example.com"

// tenCRDs are ten namespaced CRDs of the kind kubebuilder generates: one
// served version with a status subresource, a structural schema with a
// default and a CEL rule.
func tenCRDs() []*apiextensionsv1.CustomResourceDefinition {
	crds := make([]*apiextensionsv1.CustomResourceDefinition, 10)
	for i := range crds {
		crds[i] = benchCRD(fmt.Sprintf("Kind%d", i))
	}
	return crds
}

// crdResource is the resource of tenCRDs' i-th CRD.
func crdResource(i int) schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: crdGroup, Version: "v1", Resource: fmt.Sprintf("kind%ds", i)}
}

func benchCRD(kind string) *apiextensionsv1.CustomResourceDefinition {
	plural := fmt.Sprintf("%ss", lower(kind))
	spec := apiextensionsv1.JSONSchemaProps{
		Type: "object",
		Properties: map[string]apiextensionsv1.JSONSchemaProps{
			"size":  {Type: "integer"},
			"image": {Type: "string", Default: &apiextensionsv1.JSON{Raw: []byte(`"nginx"`)}},
		},
		XValidations: apiextensionsv1.ValidationRules{{Rule: "self.size <= 10", Message: "size must be at most 10"}},
	}
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: plural + "." + crdGroup},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: crdGroup,
			Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{
				Plural: plural, Singular: lower(kind), Kind: kind, ListKind: kind + "List",
			},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Subresources: &apiextensionsv1.CustomResourceSubresources{Status: &apiextensionsv1.CustomResourceSubresourceStatus{}},
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type:       "object",
					Properties: map[string]apiextensionsv1.JSONSchemaProps{"spec": spec, "status": {Type: "object", XPreserveUnknownFields: new(true)}},
				}},
			}},
		},
	}
}
