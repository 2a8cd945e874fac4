package registry

// kube-apiserver's DefaultStorageClass admission: a new claim that names
// no class (no spec.storageClassName, not even "", and no beta class
// annotation) gets the default StorageClass, the one annotated
// storageclass.kubernetes.io/is-default-class: "true" (or the beta
// annotation). When several are, the newest wins, and of equally new ones
// the first by name, as since kube 1.26. With none, the claim keeps no
// class. No StorageClass is seeded: kube-apiserver creates none (kind and
// minikube add theirs as addons).

import (
	"context"
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/miniapi/miniapi/pkg/storage"
)

// The annotations that mark the default StorageClass, and the old
// annotation a claim may name its class with.
const (
	IsDefaultStorageClassAnnotation     = "storageclass.kubernetes.io/is-default-class"
	betaIsDefaultStorageClassAnnotation = "storageclass.beta.kubernetes.io/is-default-class"
	betaStorageClassAnnotation          = "volume.beta.kubernetes.io/storage-class"
)

// defaultStorageClass are the WriteHooks of claims that set the default
// class.
type defaultStorageClass struct {
	noHooks
	store   storage.Store
	classes string // the store key prefix of StorageClasses
}

func newDefaultStorageClass(store storage.Store) WriteHooks {
	if store == nil {
		return nil
	}
	return defaultStorageClass{store: store, classes: (&Resource{Group: storagev1.GroupName, Resource: "storageclasses"}).KeyPrefix()}
}

// BeginCreate gives a claim without a class the default one.
func (h defaultStorageClass) BeginCreate(ctx context.Context, obj runtime.Object, dryRun bool) (FinishFunc, error) {
	pvc := obj.(*corev1.PersistentVolumeClaim)
	if _, ok := pvc.Annotations[betaStorageClassAnnotation]; ok || pvc.Spec.StorageClassName != nil {
		return noFinish, nil
	}
	def, err := h.defaultClass(ctx)
	if err != nil {
		return nil, apierrors.NewForbidden(schema.GroupResource{Resource: "persistentvolumeclaims"}, pvc.Name, err)
	}
	if def != "" {
		pvc.Spec.StorageClassName = &def
	}
	return noFinish, nil
}

// defaultClass is the name of the default StorageClass; "" when there is
// none.
func (h defaultStorageClass) defaultClass(ctx context.Context) (string, error) {
	list, err := h.store.List(ctx, h.classes, storage.ListOptions{})
	if err != nil {
		return "", fmt.Errorf("listing storage classes: %w", err)
	}
	var best *storagev1.StorageClass
	for _, kv := range list.KVs {
		sc := &storagev1.StorageClass{}
		if err := json.Unmarshal(kv.Value, sc); err != nil {
			return "", fmt.Errorf("decoding %s: %w", kv.Key, err)
		}
		if isDefaultStorageClass(sc) && (best == nil || newerClass(sc, best)) {
			best = sc
		}
	}
	if best == nil {
		return "", nil
	}
	return best.Name, nil
}

// isDefaultStorageClass: either annotation says "true".
func isDefaultStorageClass(sc *storagev1.StorageClass) bool {
	return sc.Annotations[IsDefaultStorageClassAnnotation] == "true" || sc.Annotations[betaIsDefaultStorageClassAnnotation] == "true"
}

// newerClass orders default classes as kube picks among them: newest
// first, then by name.
func newerClass(a, b *storagev1.StorageClass) bool {
	ta, tb := a.CreationTimestamp.UnixNano(), b.CreationTimestamp.UnixNano()
	if ta != tb {
		return ta > tb
	}
	return a.Name < b.Name
}
