package registry

// Placeholder strategies until the real ones land: they accept everything.

import (
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

type stubStrategy struct{}

func (stubStrategy) PrepareForCreate(runtime.Object)                        {}
func (stubStrategy) PrepareForUpdate(obj, old runtime.Object)               {}
func (stubStrategy) PrepareForStatusUpdate(obj, old runtime.Object)         {}
func (stubStrategy) Validate(runtime.Object) field.ErrorList                { return nil }
func (stubStrategy) ValidateUpdate(obj, old runtime.Object) field.ErrorList { return nil }
func (stubStrategy) GenerationChanged(obj, old runtime.Object) bool         { return false }
func (stubStrategy) FieldSet(obj runtime.Object) fields.Set {
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil
	}
	return fields.Set{"metadata.name": m.GetName(), "metadata.namespace": m.GetNamespace()}
}

type (
	namespaceStrategy  struct{ stubStrategy }
	nodeStrategy       struct{ stubStrategy }
	eventStrategy      struct{ stubStrategy }
)
