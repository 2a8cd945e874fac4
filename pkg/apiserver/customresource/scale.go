package customresource

import (
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/miniapi/miniapi/pkg/apiserver/registry"
)

// scalePart serves a custom resource as autoscaling/v1 Scale through the
// CRD's paths, so that kubectl scale and the HPA work on it.
func scalePart(paths *apiextensionsv1.CustomResourceSubresourceScale) *registry.Subresource {
	return &registry.Subresource{
		Kind: autoscalingv1.SchemeGroupVersion.WithKind("Scale"),
		View: &registry.View{
			New: func() runtime.Object { return &autoscalingv1.Scale{} },
			Get: func(parent runtime.Object) runtime.Object { return scaleOf(parent.(*unstructured.Unstructured), paths) },
			Validate: func(view runtime.Object) field.ErrorList {
				if r := view.(*autoscalingv1.Scale).Spec.Replicas; r < 0 {
					return field.ErrorList{field.Invalid(field.NewPath("spec", "replicas"), r, "must be greater than or equal to 0")}
				}
				return nil
			},
			Apply: func(parent, view runtime.Object) {
				u := parent.(*unstructured.Unstructured)
				_ = unstructured.SetNestedField(u.Object, int64(view.(*autoscalingv1.Scale).Spec.Replicas), pathOf(paths.SpecReplicasPath)...)
			},
			ReplicasPath: replicasFieldPath(paths.SpecReplicasPath),
		},
	}
}

// scaleOf reads the Scale of u; an absent count reads as 0.
func scaleOf(u *unstructured.Unstructured, paths *apiextensionsv1.CustomResourceSubresourceScale) *autoscalingv1.Scale {
	spec, _, _ := unstructured.NestedInt64(u.Object, pathOf(paths.SpecReplicasPath)...)
	status, _, _ := unstructured.NestedInt64(u.Object, pathOf(paths.StatusReplicasPath)...)
	selector := ""
	if p := paths.LabelSelectorPath; p != nil {
		selector, _, _ = unstructured.NestedString(u.Object, pathOf(*p)...)
	}
	return &autoscalingv1.Scale{
		TypeMeta: metav1.TypeMeta{Kind: "Scale", APIVersion: "autoscaling/v1"},
		ObjectMeta: metav1.ObjectMeta{
			Name: u.GetName(), Namespace: u.GetNamespace(), UID: u.GetUID(),
			ResourceVersion: u.GetResourceVersion(), CreationTimestamp: u.GetCreationTimestamp(),
		},
		Spec:   autoscalingv1.ScaleSpec{Replicas: int32(spec)},
		Status: autoscalingv1.ScaleStatus{Replicas: int32(status), Selector: selector},
	}
}

// replicasFieldPath is a scale path as field management spells it.
func replicasFieldPath(p string) []interface{} {
	var out []interface{}
	for _, f := range pathOf(p) {
		out = append(out, f)
	}
	return out
}
