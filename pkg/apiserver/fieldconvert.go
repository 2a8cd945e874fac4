package apiserver

// Field management across the two versions of a converted kind: an
// events.k8s.io/v1 Event is kept as a core/v1 Event, an autoscaling/v1
// HorizontalPodAutoscaler as an autoscaling/v2 one (registry.StoredAs).
// Each managedFields entry names the version its manager wrote, and the
// field manager compares a write with an entry in the entry's version, so
// it must convert between the two. kube-apiserver converts through its
// internal types; client-go's scheme has none, so the converter below
// uses the StoredAs conversions instead.

import (
	"fmt"
	"reflect"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/miniapi/miniapi/pkg/apiserver/registry"
)

// storedAsConverter converts between a converted resource's served kind
// and its stored kind, and leaves every other conversion to the scheme.
type storedAsConverter struct {
	runtime.ObjectConvertor
	served, stored       schema.GroupVersionKind
	newServed, newStored func() runtime.Object
	sa                   *registry.StoredAs
}

// objectConvertorFor is the converter for res's field manager: a
// storedAsConverter when res serves a kind another resource stores, or
// stores one that another serves; otherwise the scheme's conversion that
// does not copy an object already of the wanted version, as
// kube-apiserver gives its field managers (UnsafeConvertor): the field
// manager only reads the objects it converts, and a copy of each was a
// twelfth of what a pod's create allocated.
func objectConvertorFor(res *registry.Resource, reg *registry.Registry) runtime.ObjectConvertor {
	served := res
	if res.StoredAs == nil && reg != nil {
		served = nil
		for _, other := range reg.All() {
			if sa := other.StoredAs; sa != nil && sa.Group == res.Group && sa.Version == res.Version && sa.Resource == res.Resource {
				served = other
				break
			}
		}
	}
	if served == nil || served.StoredAs == nil {
		return runtime.UnsafeObjectConvertor(scheme.Scheme)
	}
	sa := served.StoredAs
	return storedAsConverter{
		ObjectConvertor: scheme.Scheme,
		served:          served.GroupVersionKind(),
		stored:          schema.GroupVersionKind{Group: sa.Group, Version: sa.Version, Kind: served.Kind},
		newServed:       served.New,
		newStored:       sa.New,
		sa:              sa,
	}
}

// ConvertToVersion converts in, typed or unstructured, to the one of the
// two kinds that gv names, as a new typed object with its kind set.
func (c storedAsConverter) ConvertToVersion(in runtime.Object, gv runtime.GroupVersioner) (runtime.Object, error) {
	target, ok := gv.KindForGroupVersionKinds([]schema.GroupVersionKind{c.served, c.stored})
	if !ok {
		return c.ObjectConvertor.ConvertToVersion(in, gv)
	}
	obj, isStored, err := c.typed(in)
	if err != nil {
		return nil, err
	}
	switch wantStored := target == c.stored; {
	case wantStored && !isStored:
		obj, err = c.sa.ToStored(obj)
	case !wantStored && isStored:
		obj, err = c.sa.FromStored(obj)
	}
	if err != nil {
		return nil, err
	}
	obj.GetObjectKind().SetGroupVersionKind(target)
	return obj, nil
}

// typed is a copy of in as a typed object of the served or the stored
// kind, and which of the two it is.
func (c storedAsConverter) typed(in runtime.Object) (runtime.Object, bool, error) {
	u, ok := in.(*unstructured.Unstructured)
	if !ok {
		switch reflect.TypeOf(in) {
		case reflect.TypeOf(c.newServed()):
			return in.DeepCopyObject(), false, nil
		case reflect.TypeOf(c.newStored()):
			return in.DeepCopyObject(), true, nil
		}
		return nil, false, fmt.Errorf("converting %T: neither %s nor %s", in, c.served, c.stored)
	}
	var out runtime.Object
	switch u.GroupVersionKind() {
	case c.served:
		out = c.newServed()
	case c.stored:
		out = c.newStored()
	default:
		return nil, false, fmt.Errorf("converting %s: neither %s nor %s", u.GroupVersionKind(), c.served, c.stored)
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, out); err != nil {
		return nil, false, err
	}
	return out, u.GroupVersionKind() == c.stored, nil
}
