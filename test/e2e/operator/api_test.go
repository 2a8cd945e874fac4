// Package operator is a kubebuilder-style operator tested the way
// kubebuilder scaffolds it, with miniapi's testenv in place of envtest:
// a Memcached CRD read from a directory, a reconciler built on
// controller-runtime that owns a Deployment and a ConfigMap, and a
// leader-elected manager.
package operator

import (
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// groupVersion is the Memcached API's group and version, as the
// kubebuilder scaffold's api/v1/groupversion_info.go declares them.
var groupVersion = schema.GroupVersion{Group: "cache.example.com", Version: "v1"}

// addToScheme registers Memcached and MemcachedList.
func addToScheme(s *runtime.Scheme) error {
	s.AddKnownTypes(groupVersion, &Memcached{}, &MemcachedList{})
	metav1.AddToGroupVersion(s, groupVersion)
	return nil
}

// MemcachedSpec is what the user asks for.
type MemcachedSpec struct {
	// Size is how many memcached pods run; the CRD's CEL rule holds it
	// to 10 at most.
	Size int32 `json:"size"`
	// Image defaults (in the CRD's schema) to a memcached image.
	Image string `json:"image,omitempty"`
}

// MemcachedStatus is what the operator observed.
type MemcachedStatus struct {
	ReadyReplicas int32              `json:"readyReplicas,omitempty"`
	Conditions    []metav1.Condition `json:"conditions,omitempty"`
}

// Memcached is one memcached deployment the operator runs.
type Memcached struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              MemcachedSpec   `json:"spec,omitempty"`
	Status            MemcachedStatus `json:"status,omitempty"`
}

// MemcachedList is a list of Memcached.
type MemcachedList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Memcached `json:"items"`
}

// The deep copies controller-gen would generate.

func (in *Memcached) DeepCopyInto(out *Memcached) {
	*out = *in
	out.TypeMeta = in.TypeMeta
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.Status.Conditions = slices.Clone(in.Status.Conditions)
}

func (in *Memcached) DeepCopy() *Memcached {
	if in == nil {
		return nil
	}
	out := new(Memcached)
	in.DeepCopyInto(out)
	return out
}

func (in *Memcached) DeepCopyObject() runtime.Object { return in.DeepCopy() }

func (in *MemcachedList) DeepCopyObject() runtime.Object {
	if in == nil {
		return nil
	}
	out := &MemcachedList{TypeMeta: in.TypeMeta}
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	if in.Items != nil {
		out.Items = make([]Memcached, len(in.Items))
		for i := range in.Items {
			in.Items[i].DeepCopyInto(&out.Items[i])
		}
	}
	return out
}
