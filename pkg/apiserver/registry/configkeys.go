package registry

// Rules shared by ConfigMaps and Secrets: their keys, and the immutable
// flag that freezes their contents.

import (
	"slices"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// validateConfigKey checks one key of data (or binaryData) at path.
func validateConfigKey(path *field.Path, key string) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range validation.IsConfigMapKey(key) {
		errs = append(errs, field.Invalid(path.Key(key), key, msg))
	}
	return errs
}

// immutableFlagKept: once immutable is true it must stay true.
func immutableFlagKept(immutable *bool) field.ErrorList {
	if isTrue(immutable) {
		return nil
	}
	return field.ErrorList{forbiddenWhenImmutable(field.NewPath("immutable"))}
}

func forbiddenWhenImmutable(path *field.Path) *field.Error {
	return field.Forbidden(path, "field is immutable when `immutable` is set")
}

func isTrue(b *bool) bool { return b != nil && *b }

// sortedKeys returns m's keys in order, so that errors about several keys
// come in the same order every time (kube's follow map order).
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
