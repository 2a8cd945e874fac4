package cli

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/jsonmergepatch"
	"k8s.io/apimachinery/pkg/util/mergepatch"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/client-go/kubernetes/scheme"
)

// lastAppliedAnnotation holds the configuration a client-side apply last
// sent; it is the "original" of the three-way merge.
const lastAppliedAnnotation = corev1.LastAppliedConfigAnnotation

// modifiedConfiguration serializes obj as kubectl's client-side apply does:
// first without the last-applied annotation (that text becomes the
// annotation), then, with annotate, again with the annotation embedded. The
// object is left as it was given. Serialization uses the unstructured JSON
// encoder, whose output ends in a newline; kubectl stores it that way.
func modifiedConfiguration(obj *unstructured.Unstructured, annotate bool) ([]byte, error) {
	annots := obj.GetAnnotations()
	if annots == nil {
		annots = map[string]string{}
	}
	previous, had := annots[lastAppliedAnnotation]
	delete(annots, lastAppliedAnnotation)
	obj.SetAnnotations(annots)
	defer func() {
		if had {
			annots[lastAppliedAnnotation] = previous
		} else {
			delete(annots, lastAppliedAnnotation)
		}
		obj.SetAnnotations(annots)
	}()

	modified, err := runtime.Encode(unstructured.UnstructuredJSONScheme, obj)
	if err != nil {
		return nil, err
	}
	if !annotate {
		return modified, nil
	}
	withAnnotation := copyAnnotations(annots)
	withAnnotation[lastAppliedAnnotation] = string(modified)
	obj.SetAnnotations(withAnnotation)
	return runtime.Encode(unstructured.UnstructuredJSONScheme, obj)
}

func copyAnnotations(in map[string]string) map[string]string {
	out := make(map[string]string, len(in)+1)
	for k, v := range in {
		out[k] = v
	}
	return out
}

// setLastApplied stores obj's own configuration in its last-applied
// annotation, as kubectl does before creating an object with apply.
func setLastApplied(obj *unstructured.Unstructured) error {
	modified, err := modifiedConfiguration(obj, false)
	if err != nil {
		return err
	}
	annots := copyAnnotations(obj.GetAnnotations())
	annots[lastAppliedAnnotation] = string(modified)
	obj.SetAnnotations(annots)
	return nil
}

// applyPatch computes the three-way patch client-side apply sends: from the
// last applied configuration (original), the new manifest with its
// annotation (modified) and the live object (current). Built-in kinds get a
// strategic merge patch driven by the typed struct's patch tags; other kinds a
// JSON merge patch. "{}" means there is nothing to change.
func applyPatch(gvk schema.GroupVersionKind, original, modified, current []byte) ([]byte, types.PatchType, error) {
	versioned, err := scheme.Scheme.New(gvk)
	if err == nil {
		meta, err := strategicpatch.NewPatchMetaFromStruct(versioned)
		if err != nil {
			return nil, "", err
		}
		patch, err := strategicpatch.CreateThreeWayMergePatch(original, modified, current, meta, true)
		if err != nil {
			return nil, "", applyPatchError(original, modified, current, err)
		}
		return patch, types.StrategicMergePatchType, nil
	}
	if !runtime.IsNotRegisteredError(err) {
		return nil, "", fmt.Errorf("getting instance of versioned object for %v: %w", gvk, err)
	}
	preconditions := []mergepatch.PreconditionFunc{mergepatch.RequireKeyUnchanged("apiVersion"),
		mergepatch.RequireKeyUnchanged("kind"), mergepatch.RequireMetadataKeyUnchanged("name")}
	patch, err := jsonmergepatch.CreateThreeWayJSONMergePatch(original, modified, current, preconditions...)
	if err != nil {
		if mergepatch.IsPreconditionFailed(err) {
			return nil, "", fmt.Errorf("at least one of apiVersion, kind and name was changed")
		}
		return nil, "", applyPatchError(original, modified, current, err)
	}
	return patch, types.MergePatchType, nil
}

func applyPatchError(original, modified, current []byte, err error) error {
	return fmt.Errorf("creating patch with:\noriginal:\n%s\nmodified:\n%s\ncurrent:\n%s\nfor: %w", original, modified, current, err)
}

// pruneNulls drops null values from a manifest before a create, so that the
// created object matches what a later apply of the same manifest would keep.
func pruneNulls(v interface{}) {
	switch t := v.(type) {
	case map[string]interface{}:
		for k, x := range t {
			if x == nil {
				delete(t, k)
				continue
			}
			pruneNulls(x)
		}
	case []interface{}:
		for _, x := range t {
			pruneNulls(x)
		}
	}
}
