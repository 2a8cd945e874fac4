package registry

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/miniapi/miniapi/pkg/storage"
	"github.com/miniapi/miniapi/pkg/storage/boltstore"
)

func openTestStore(t *testing.T) storage.Store {
	t.Helper()
	store, err := boltstore.Open(filepath.Join(t.TempDir(), "db"), boltstore.Options{HistorySize: 100})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	return store
}

// storeObject writes obj under r's key for it, as the handlers would.
func storeObject(t *testing.T, store storage.Store, r *Resource, namespace, name string, obj runtime.Object) {
	t.Helper()
	b, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	key := r.KeyPrefix() + name
	if r.Namespaced {
		key = r.KeyPrefix() + namespace + "/" + name
	}
	if _, err := store.Create(context.Background(), key, b); err != nil {
		t.Fatal(err)
	}
}

// admitCreate runs a create's rules in the handlers' order: defaults,
// hooks, validation, then the hooks' validation.
func admitCreate(t *testing.T, r *Resource, obj runtime.Object) error {
	t.Helper()
	ctx := context.Background()
	r.Strategy.PrepareForCreate(obj)
	finish, err := r.Hooks.BeginCreate(ctx, obj, false)
	if err != nil {
		return err
	}
	defer finish(ctx, false)
	if errs := r.Strategy.Validate(obj); len(errs) > 0 {
		t.Fatalf("invalid: %v", errs)
	}
	return ValidateCreate(ctx, r.Hooks, obj)
}

func TestLimitRangerOnPodCreate(t *testing.T) {
	store := openTestStore(t)
	storeObject(t, store, limitRanges(), "lr-demo", "defaults", referenceLimitRange())
	r := pods(Options{Store: store})

	pod := &corev1.Pod{ObjectMeta: objMeta("lr1", "lr-demo"), Spec: corev1.PodSpec{Containers: []corev1.Container{container("lr1", "nginx")}}}
	if err := admitCreate(t, r, pod); err != nil {
		t.Fatal(err)
	}
	if pod.Annotations[LimitRangerAnnotation] == "" || pod.Status.QOSClass != corev1.PodQOSBurstable {
		t.Errorf("annotations %v, QoS %s (want Burstable, computed after the defaults)", pod.Annotations, pod.Status.QOSClass)
	}

	// The reference's kubectl run lr2, and its exact message.
	lr2 := &corev1.Pod{ObjectMeta: objMeta("lr2", "lr-demo"), Spec: corev1.PodSpec{Containers: []corev1.Container{{
		Name: "lr2", Image: "nginx", Resources: corev1.ResourceRequirements{Limits: resources("memory", "2Gi")}}}}}
	err := admitCreate(t, r, lr2)
	want := `pods "lr2" is forbidden: maximum memory usage per Container is 1Gi, but limit is 2Gi`
	if !apierrors.IsForbidden(err) || err.Error() != want {
		t.Errorf("got %v\nwant 403 %s", err, want)
	}

	// Another namespace's LimitRange does not apply.
	other := &corev1.Pod{ObjectMeta: objMeta("free", "default"), Spec: corev1.PodSpec{Containers: []corev1.Container{container("c", "nginx")}}}
	if err := admitCreate(t, r, other); err != nil || other.Annotations != nil || other.Status.QOSClass != corev1.PodQOSBestEffort {
		t.Errorf("pod in default: %v, annotations %v, QoS %s", err, other.Annotations, other.Status.QOSClass)
	}
}

func TestLimitRangerEveryRangeApplies(t *testing.T) {
	store := openTestStore(t)
	lrs := limitRanges()
	for name, item := range map[string]corev1.LimitRangeItem{
		"a-cpu":    {Type: corev1.LimitTypeContainer, Default: resources("cpu", "200m")},
		"b-memory": {Type: corev1.LimitTypeContainer, Default: resources("memory", "128Mi"), Min: resources("memory", "100Mi")},
	} {
		lr := &corev1.LimitRange{Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{item}}}
		lrs.Strategy.PrepareForCreate(lr) // the default request from the default limit
		storeObject(t, store, lrs, "ns", name, lr)
	}
	r := pods(Options{Store: store})
	pod := &corev1.Pod{ObjectMeta: objMeta("p", "ns"), Spec: corev1.PodSpec{Containers: []corev1.Container{container("c", "nginx")}}}
	if err := admitCreate(t, r, pod); err != nil {
		t.Fatal(err)
	}
	// Each LimitRange annotates in turn; the last one's note stays, as in kube.
	if got, want := pod.Annotations[LimitRangerAnnotation], "LimitRanger plugin set: memory request for container c; memory limit for container c"; got != want {
		t.Errorf("annotation %q, want %q", got, want)
	}
	if l := pod.Spec.Containers[0].Resources.Limits; l.Cpu().String() != "200m" || l.Memory().String() != "128Mi" {
		t.Errorf("limits %v", l)
	}
	small := &corev1.Pod{ObjectMeta: objMeta("small", "ns"), Spec: corev1.PodSpec{Containers: []corev1.Container{{
		Name: "c", Image: "nginx", Resources: corev1.ResourceRequirements{Requests: resources("memory", "10Mi")}}}}}
	want := `pods "small" is forbidden: minimum memory usage per Container is 100Mi, but request is 10Mi`
	if err := admitCreate(t, r, small); !apierrors.IsForbidden(err) || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
}

func TestLimitRangerOnClaimCreate(t *testing.T) {
	store := openTestStore(t)
	storeObject(t, store, limitRanges(), "ns", "storage", &corev1.LimitRange{Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{{
		Type: corev1.LimitTypePersistentVolumeClaim, Max: resources("storage", "2Gi")}}}})
	r := persistentVolumeClaims(Options{Store: store})
	claim := func(name, size string) *corev1.PersistentVolumeClaim {
		return &corev1.PersistentVolumeClaim{ObjectMeta: objMeta(name, "ns"), Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources:   corev1.VolumeResourceRequirements{Requests: resources("storage", size)},
		}}
	}
	if err := admitCreate(t, r, claim("fits", "1Gi")); err != nil {
		t.Error(err)
	}
	want := `persistentvolumeclaims "big" is forbidden: maximum storage usage per PersistentVolumeClaim is 2Gi, but request is 5Gi`
	if err := admitCreate(t, r, claim("big", "5Gi")); !apierrors.IsForbidden(err) || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
}
