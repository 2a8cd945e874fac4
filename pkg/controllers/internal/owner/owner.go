// Package owner holds the ownerReference helpers the workload controllers
// share: building a controller reference, finding an object's controller,
// and the patches that adopt or release a dependent.
//
// Adoption and release are strategic merge patches keyed by the dependent's
// UID, as kube-controller-manager sends them: if the object was deleted and
// re-created under the same name meanwhile, the patch fails instead of
// touching a stranger.
package owner

import (
	"encoding/json"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
)

// ControllerRef is the ownerReference a controller puts on what it creates:
// controller=true, and blockOwnerDeletion=true so that foreground deletion
// of the owner waits for the dependent.
func ControllerRef(owner metav1.Object, gvk schema.GroupVersionKind) metav1.OwnerReference {
	yes := true
	return metav1.OwnerReference{
		APIVersion:         gvk.GroupVersion().String(),
		Kind:               gvk.Kind,
		Name:               owner.GetName(),
		UID:                owner.GetUID(),
		Controller:         &yes,
		BlockOwnerDeletion: &yes,
	}
}

// ControllerKey is the "namespace/name" key of the controller of obj (an
// informer's object, or the tombstone of a deleted one) when that
// controller is of kind gvk: the key an event on a dependent enqueues.
func ControllerKey(obj any, gvk schema.GroupVersionKind) (string, bool) {
	if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tomb.Obj
	}
	m, ok := obj.(metav1.Object)
	if !ok {
		return "", false
	}
	ref := metav1.GetControllerOf(m)
	if ref == nil || ref.Kind != gvk.Kind || ref.APIVersion != gvk.GroupVersion().String() {
		return "", false
	}
	return m.GetNamespace() + "/" + ref.Name, true
}

// IsControlledBy reports whether obj's controller reference points at uid.
func IsControlledBy(obj metav1.Object, uid types.UID) bool {
	ref := metav1.GetControllerOf(obj)
	return ref != nil && ref.UID == uid
}

// AdoptPatch is the strategic merge patch that makes owner the controller
// of the object with UID uid.
func AdoptPatch(owner metav1.Object, gvk schema.GroupVersionKind, uid types.UID) []byte {
	ref := ControllerRef(owner, gvk)
	b, _ := json.Marshal(map[string]any{
		"metadata": map[string]any{
			"ownerReferences": []metav1.OwnerReference{ref},
			"uid":             uid,
		},
	})
	return b
}

// ReleasePatch is the strategic merge patch that removes owner's reference
// from the object with UID uid.
func ReleasePatch(ownerUID, uid types.UID) []byte {
	return fmt.Appendf(nil, `{"metadata":{"ownerReferences":[{"$patch":"delete","uid":%q}],"uid":%q}}`, ownerUID, uid)
}

// Index names an informer index from "controller UID" to objects; orphans
// (no controller) are filed under OrphanKey(namespace).
const Index = "miniapi-controller-uid"

// OrphanKey is the index value of objects in namespace without a controller.
func OrphanKey(namespace string) string { return "orphan/" + namespace }

// IndexFunc files an object under its controller's UID, or under its
// namespace's orphan key.
func IndexFunc(obj any) ([]string, error) {
	m, ok := obj.(metav1.Object)
	if !ok {
		return nil, nil
	}
	if ref := metav1.GetControllerOf(m); ref != nil {
		return []string{string(ref.UID)}, nil
	}
	return []string{OrphanKey(m.GetNamespace())}, nil
}

// AddIndex adds IndexFunc under Index to informer unless it already has it
// (several controllers may share one informer). Call before the informer starts.
func AddIndex(informer cache.SharedIndexInformer) error {
	if _, ok := informer.GetIndexer().GetIndexers()[Index]; ok {
		return nil
	}
	return informer.AddIndexers(cache.Indexers{Index: IndexFunc})
}
