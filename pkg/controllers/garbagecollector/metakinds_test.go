package garbagecollector

import (
	"context"
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	metadatafake "k8s.io/client-go/metadata/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/miniapi/miniapi/pkg/controllers/internal/clienttest"
)

var (
	configMapGVR = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	leaseGVR     = schema.GroupVersionResource{Group: "coordination.k8s.io", Version: "v1", Resource: "leases"}
	widgetGVR    = schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}
)

// discovered is what the fake discovery lists: typed kinds, two kinds only
// the metadata informers can watch, events (ignored) and a create-only
// review (not deletable).
func discovered() []*metav1.APIResourceList {
	all := metav1.Verbs{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}
	return []*metav1.APIResourceList{
		{GroupVersion: "v1", APIResources: []metav1.APIResource{
			{Name: "pods", Kind: "Pod", Namespaced: true, Verbs: all},
			{Name: "configmaps", Kind: "ConfigMap", Namespaced: true, Verbs: all},
			{Name: "events", Kind: "Event", Namespaced: true, Verbs: all},
			{Name: "nodes", Kind: "Node", Verbs: all},
		}},
		{GroupVersion: "apps/v1", APIResources: []metav1.APIResource{
			{Name: "deployments", Kind: "Deployment", Namespaced: true, Verbs: all},
			{Name: "replicasets", Kind: "ReplicaSet", Namespaced: true, Verbs: all},
		}},
		{GroupVersion: "coordination.k8s.io/v1", APIResources: []metav1.APIResource{
			{Name: "leases", Kind: "Lease", Namespaced: true, Verbs: all},
		}},
		{GroupVersion: "authorization.k8s.io/v1", APIResources: []metav1.APIResource{
			{Name: "localsubjectaccessreviews", Kind: "LocalSubjectAccessReview", Namespaced: true, Verbs: metav1.Verbs{"create"}},
		}},
	}
}

func partial(gvr schema.GroupVersionResource, kind, name string, uid types.UID, owners ...metav1.OwnerReference) *metav1.PartialObjectMetadata {
	return &metav1.PartialObjectMetadata{
		TypeMeta:   metav1.TypeMeta{APIVersion: gvr.GroupVersion().String(), Kind: kind},
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, UID: uid, OwnerReferences: owners, ResourceVersion: "1"},
	}
}

// setupWithMetadata is setup with a metadata client: typed holds Pods,
// ReplicaSets and Deployments, objs the ConfigMaps, Leases and Widgets.
// The monitors run until the test ends; Run does not.
func setupWithMetadata(t *testing.T, typed []runtime.Object, objs ...runtime.Object) (*Collector, *metadatafake.FakeMetadataClient) {
	t.Helper()
	e := newWithMetadata(t, Config{}, discovered(), typed, objs...)
	e.startInformers(t)
	return e.c, e.meta
}

// startInformers starts the typed informers and the monitors until the
// test ends, waits for their caches and clears the recorded actions.
func (e testEnv) startInformers(t *testing.T) {
	t.Helper()
	clienttest.Start(t, e.client, e.informers)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() { cancel(); e.c.stopMonitors() })
	e.c.startMonitors(ctx)
	waitSynced(t, e.c)
	e.meta.ClearActions()
}

// testEnv is a collector over fake clients.
type testEnv struct {
	c         *Collector
	client    *fake.Clientset
	meta      *metadatafake.FakeMetadataClient
	informers informers.SharedInformerFactory
}

// newWithMetadata builds a collector whose discovery lists resources, over
// fake clients holding typed and objs; nothing is started.
func newWithMetadata(t *testing.T, cfg Config, resources []*metav1.APIResourceList, typed []runtime.Object, objs ...runtime.Object) testEnv {
	t.Helper()
	client := fake.NewClientset(typed...)
	client.Resources = resources
	scheme := metadatafake.NewTestScheme()
	metav1.AddMetaToScheme(scheme)
	for _, gvk := range []schema.GroupVersionKind{configMapGVR.GroupVersion().WithKind("ConfigMap"), leaseGVR.GroupVersion().WithKind("Lease"), widgetGVR.GroupVersion().WithKind("Widget")} {
		scheme.AddKnownTypeWithName(gvk, &metav1.PartialObjectMetadata{})
		scheme.AddKnownTypeWithName(gvk.GroupVersion().WithKind(gvk.Kind+"List"), &metav1.PartialObjectMetadataList{})
	}
	meta := metadatafake.NewSimpleMetadataClient(scheme, objs...)
	clienttest.CopyWatchedObjects(&meta.Fake, meta.Tracker())
	cfg.Client, cfg.Metadata = client, meta
	cfg.Informers = informers.NewSharedInformerFactory(client, 0)
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return testEnv{c: c, client: client, meta: meta, informers: cfg.Informers}
}

// waitSynced waits until every cache of c has synced.
func waitSynced(t *testing.T, c *Collector) {
	t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), time.Millisecond, clienttest.Timeout, true, func(context.Context) (bool, error) {
		return c.cachesSynced(), nil
	})
	if err != nil {
		t.Fatalf("caches not synced within %v", clienttest.Timeout)
	}
}

func TestMetadataKindsAreTheDeletableNamespacedResources(t *testing.T) {
	c, _ := setupWithMetadata(t, nil)
	var got []string
	for _, k := range c.currentKinds() {
		got = append(got, k.resource+" "+k.apiVersion+" "+k.kind)
	}
	want := []string{"pods v1 Pod", "replicasets apps/v1 ReplicaSet", "deployments apps/v1 Deployment",
		"configmaps v1 ConfigMap", "leases.coordination.k8s.io coordination.k8s.io/v1 Lease"}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("kinds = %q\nwant    %q", got, want)
	}
}

func TestMetadataKindsOrphansAreDeletedByUID(t *testing.T) {
	cmRef := func(name string, uid types.UID) metav1.OwnerReference {
		return metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: name, UID: uid}
	}
	c, meta := setupWithMetadata(t,
		[]runtime.Object{deploy("web", "d-uid")},
		partial(configMapGVR, "ConfigMap", "owned", "cm1", ref("Deployment", "web", "d-uid", true)),
		partial(configMapGVR, "ConfigMap", "orphan", "cm2", ref("Deployment", "gone", "gone-uid", true)),
		partial(leaseGVR, "Lease", "held", "l1", cmRef("owned", "cm1")),
		partial(leaseGVR, "Lease", "dangling", "l2", cmRef("owned", "old-uid")),
	)
	ctx := context.Background()
	for _, key := range []string{"configmaps/default/owned", "configmaps/default/orphan",
		"leases.coordination.k8s.io/default/held", "leases.coordination.k8s.io/default/dangling"} {
		if err := c.Reconcile(ctx, key); err != nil {
			t.Fatalf("%s: %v", key, err)
		}
	}
	var deleted []string
	for _, a := range meta.Actions() {
		if d, ok := a.(k8stesting.DeleteActionImpl); ok {
			if d.DeleteOptions.Preconditions == nil || d.DeleteOptions.Preconditions.UID == nil {
				t.Errorf("delete of %s/%s has no uid precondition", d.Resource.Resource, d.Name)
			}
			deleted = append(deleted, d.Resource.Resource+"/"+d.Name)
		}
	}
	slices.Sort(deleted)
	if want := []string{"configmaps/orphan", "leases/dangling"}; !slices.Equal(deleted, want) {
		t.Errorf("deleted %v; want %v", deleted, want)
	}
}

func TestMetadataKindsOrphanOwnerLosesItsFinalizer(t *testing.T) {
	parent := partial(configMapGVR, "ConfigMap", "parent", "cm1")
	parent.Finalizers = []string{FinalizerOrphan, "example.com/keep"}
	now := metav1.Now()
	parent.DeletionTimestamp = &now
	c, meta := setupWithMetadata(t, nil, parent,
		partial(leaseGVR, "Lease", "child", "l1", metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "parent", UID: "cm1"}))
	ctx := context.Background()
	if err := c.Reconcile(ctx, "configmaps/default/parent"); err != nil {
		t.Fatal(err)
	}
	child, err := meta.Resource(leaseGVR).Namespace("default").Get(ctx, "child", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(child.OwnerReferences) != 0 {
		t.Errorf("child ownerReferences = %+v; want none", child.OwnerReferences)
	}
	p, err := meta.Resource(configMapGVR).Namespace("default").Get(ctx, "parent", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(p.Finalizers, []string{"example.com/keep"}) {
		t.Errorf("parent finalizers = %v; want only example.com/keep", p.Finalizers)
	}
	var patches []string
	for _, a := range meta.Actions() {
		if pa, ok := a.(k8stesting.PatchActionImpl); ok {
			patches = append(patches, pa.Resource.Resource+" "+string(pa.Patch))
		}
	}
	if want := `configmaps {"metadata":{"finalizers":["example.com/keep"],"resourceVersion":"1"}}`; !slices.Contains(patches, want) {
		t.Errorf("patches %q; want the finalizer removal guarded by the resourceVersion: %s", patches, want)
	}
}
