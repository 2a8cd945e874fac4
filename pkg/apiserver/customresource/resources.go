// Package customresource turns a CustomResourceDefinition into the
// registry resources that serve its objects, one per served version. The
// objects are *unstructured.Unstructured; the CRD's schema does for them
// what Go structs do for the built-in kinds (pruning, defaulting,
// validation, the field manager's schema), through the packages of
// k8s.io/apiextensions-apiserver that kube-apiserver itself uses.
package customresource

import (
	"context"
	"fmt"
	"sort"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/version"

	"github.com/miniapi/miniapi/pkg/apiserver/registry"
)

// Resources are the resources serving crd's served versions, highest
// version priority first (v2, v1, v1beta1), as discovery lists them.
func Resources(crd *apiextensionsv1.CustomResourceDefinition) ([]*registry.Resource, error) {
	var storage *versionSchema
	var storageVersion string
	schemas := map[string]*versionSchema{}
	for i := range crd.Spec.Versions {
		v := &crd.Spec.Versions[i]
		s, err := newVersionSchema(v)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", crd.Name, err)
		}
		schemas[v.Name] = s
		if v.Storage {
			storage, storageVersion = s, v.Name
		}
	}
	if storage == nil {
		return nil, fmt.Errorf("%s: no storage version", crd.Name)
	}
	var out []*registry.Resource
	for i := range crd.Spec.Versions {
		v := &crd.Spec.Versions[i]
		if !v.Served {
			continue
		}
		res, err := resource(crd, v, schemas[v.Name], storage)
		if err != nil {
			return nil, fmt.Errorf("%s: version %s: %w", crd.Name, v.Name, err)
		}
		res.Schema.StorageVersion = storageVersion
		out = append(out, res)
	}
	sort.SliceStable(out, func(i, j int) bool { return version.CompareKubeAwareVersionStrings(out[i].Version, out[j].Version) > 0 })
	return out, nil
}

// resource serves version v of crd.
func resource(crd *apiextensionsv1.CustomResourceDefinition, v *apiextensionsv1.CustomResourceDefinitionVersion, s, storage *versionSchema) (*registry.Resource, error) {
	names := crd.Status.AcceptedNames
	gvk := schema.GroupVersionKind{Group: crd.Spec.Group, Version: v.Name, Kind: names.Kind}
	listGVK := gvk.GroupVersion().WithKind(names.ListKind)
	namespaced := crd.Spec.Scope == apiextensionsv1.NamespaceScoped
	st := &strategy{kind: gvk, namespaced: namespaced, schema: s}
	subresources := map[string]*registry.Subresource{}
	if sub := v.Subresources; sub != nil {
		if sub.Status != nil {
			st.hasStatus = true
			subresources["status"] = st.statusPart()
		}
		if sub.Scale != nil {
			st.scale = sub.Scale
			subresources["scale"] = scalePart(sub.Scale)
		}
	}
	table, err := Table(v.AdditionalPrinterColumns)
	if err != nil {
		return nil, err
	}
	converter, err := s.typeConverter(gvk)
	if err != nil {
		return nil, fmt.Errorf("field management schema: %w", err)
	}
	res := &registry.Resource{
		Group: crd.Spec.Group, Version: v.Name, Resource: names.Plural, Kind: names.Kind, ListKind: names.ListKind, Singular: names.Singular,
		ShortNames: names.ShortNames, Categories: names.Categories, Namespaced: namespaced, Verbs: verbs,
		New: func() runtime.Object {
			u := &unstructured.Unstructured{}
			u.SetGroupVersionKind(gvk)
			return u
		},
		NewList: func() runtime.Object {
			l := &unstructured.UnstructuredList{}
			l.SetGroupVersionKind(listGVK)
			return l
		},
		Strategy:     st,
		Subresources: subresources,
		Generation:   st.generationChanged,
		Table:        table,
		FieldSet:     FieldSet(v.SelectableFields, namespaced),
		Schema: &registry.Schema{
			Prune:         s.prune,
			Default:       s.applyDefaults,
			TypeConverter: converter,
			OpenAPI:       s.openAPI(),
		},
	}
	if s != storage {
		// Objects are kept in the storage version, as kube-apiserver
		// converts them before storing.
		res.Schema.ToStorage = func(u *unstructured.Unstructured) { storage.prune(u) }
	}
	if v.Deprecated {
		res.Warning = deprecationWarning(gvk, v.DeprecationWarning)
	}
	if crd.DeletionTimestamp != nil {
		res.Hooks = refuseCreate{}
	}
	return res, nil
}

// verbs are every verb, in the order kube-apiserver's discovery lists
// them for custom resources.
var verbs = []string{"delete", "deletecollection", "get", "list", "patch", "create", "update", "watch"}

// deprecationWarning is the CRD's own, or kube's default wording.
func deprecationWarning(gvk schema.GroupVersionKind, custom *string) string {
	if custom != nil {
		return *custom
	}
	return fmt.Sprintf("%s %s is deprecated", gvk.GroupVersion(), gvk.Kind)
}

// refuseCreate refuses new objects of a CRD being deleted, with
// kube-apiserver's 405, while the existing ones are deleted.
type refuseCreate struct{}

func (refuseCreate) BeginCreate(context.Context, runtime.Object, bool) (registry.FinishFunc, error) {
	err := apierrors.NewMethodNotSupported(schema.GroupResource{}, "create")
	err.ErrStatus.Message = "create not allowed while custom resource definition is terminating"
	return nil, err
}

func (refuseCreate) BeginUpdate(context.Context, runtime.Object, runtime.Object, bool) (registry.FinishFunc, error) {
	return func(context.Context, bool) {}, nil
}

func (refuseCreate) AfterDelete(context.Context, runtime.Object) {}
