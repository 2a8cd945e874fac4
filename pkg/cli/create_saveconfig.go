package cli

import (
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"
)

// typedJSONEncoder encodes built-in objects as kubectl's default JSON
// encoder does: compact, Go field order (kind before apiVersion), a
// trailing newline. The last-applied annotation holds exactly these bytes.
var typedJSONEncoder = scheme.Codecs.LegacyCodec(scheme.Scheme.PrioritizedVersionsAllGroups()...)

// saveConfig is what --save-config does to an object a generator built,
// as kubectl's CreateOrUpdateAnnotation: with save set, the object's own
// configuration goes into its last-applied annotation; without, an
// annotation it already carries (copied from a template) is refreshed.
func saveConfig(save bool, obj any) error {
	ro, ok := obj.(runtime.Object)
	if !ok {
		return nil
	}
	accessor, err := meta.Accessor(ro)
	if err != nil {
		return err
	}
	annots := accessor.GetAnnotations()
	if !save && annots[lastAppliedAnnotation] == "" {
		return nil
	}
	without := copyAnnotations(annots)
	delete(without, lastAppliedAnnotation)
	accessor.SetAnnotations(without)
	data, err := runtime.Encode(typedJSONEncoder, ro)
	if err != nil {
		accessor.SetAnnotations(annots)
		return err
	}
	without[lastAppliedAnnotation] = string(data)
	accessor.SetAnnotations(without)
	return nil
}
