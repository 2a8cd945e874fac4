package namespace

import (
	"context"
	"errors"
	"maps"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	fakediscovery "k8s.io/client-go/discovery/fake"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	metadatafake "k8s.io/client-go/metadata/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/miniapi/miniapi/pkg/controllers/internal/clienttest"
)

// served is what the fake discovery lists: namespaced kinds that can and
// cannot be deleted in one request, a subresource, a kind that cannot be
// deleted at all, and a cluster-scoped kind.
var served = []*metav1.APIResourceList{
	{GroupVersion: "v1", APIResources: []metav1.APIResource{
		{Name: "pods", Namespaced: true, Kind: "Pod", Verbs: metav1.Verbs{"create", "delete", "deletecollection", "get", "list", "watch"}},
		{Name: "pods/status", Namespaced: true, Kind: "Pod", Verbs: metav1.Verbs{"get", "patch", "update"}},
		{Name: "events", Namespaced: true, Kind: "Event", Verbs: metav1.Verbs{"create", "delete", "deletecollection", "get", "list", "watch"}},
		{Name: "services", Namespaced: true, Kind: "Service", Verbs: metav1.Verbs{"create", "delete", "get", "list", "watch"}},
		{Name: "namespaces", Kind: "Namespace", Verbs: metav1.Verbs{"create", "delete", "get", "list", "watch"}},
	}},
	{GroupVersion: "apps/v1", APIResources: []metav1.APIResource{
		{Name: "deployments", Namespaced: true, Kind: "Deployment", Verbs: metav1.Verbs{"create", "delete", "deletecollection", "get", "list", "watch"}},
	}},
	{GroupVersion: "authorization.k8s.io/v1", APIResources: []metav1.APIResource{
		{Name: "localsubjectaccessreviews", Namespaced: true, Kind: "LocalSubjectAccessReview", Verbs: metav1.Verbs{"create"}},
	}},
}

// setup serves namespaces through the clientset and the objects in them
// (PartialObjectMetadata) through the metadata client.
func setup(t *testing.T, objs ...runtime.Object) (*Controller, *fake.Clientset, *metadatafake.FakeMetadataClient) {
	t.Helper()
	var namespaces, contents []runtime.Object
	for _, o := range objs {
		if _, ok := o.(*metav1.PartialObjectMetadata); ok {
			contents = append(contents, o)
		} else {
			namespaces = append(namespaces, o)
		}
	}
	client := fake.NewClientset(namespaces...)
	client.Discovery().(*fakediscovery.FakeDiscovery).Resources = served
	meta := metadatafake.NewSimpleMetadataClient(metadataScheme(), contents...)
	inf := informers.NewSharedInformerFactory(client, 0)
	c, err := New(Config{Client: client, Metadata: meta, Informers: inf})
	if err != nil {
		t.Fatal(err)
	}
	clienttest.Start(t, client, inf)
	client.ClearActions()
	return c, client, meta
}

// widgets is a custom resource, served only once a test says so; it can
// be deleted one object at a time only.
var widgets = &metav1.APIResourceList{GroupVersion: "example.com/v1", APIResources: []metav1.APIResource{
	{Name: "widgets", Namespaced: true, Kind: "Widget", Verbs: metav1.Verbs{"create", "delete", "get", "list", "watch"}},
}}

// metadataScheme knows the served namespaced kinds, and widgets, as
// metadata only.
func metadataScheme() *runtime.Scheme {
	scheme := metadatafake.NewTestScheme()
	for _, list := range append(slices.Clone(served), widgets) {
		gv, _ := schema.ParseGroupVersion(list.GroupVersion)
		for _, r := range list.APIResources {
			scheme.AddKnownTypeWithName(gv.WithKind(r.Kind), &metav1.PartialObjectMetadata{})
			scheme.AddKnownTypeWithName(gv.WithKind(r.Kind+"List"), &metav1.PartialObjectMetadataList{})
		}
	}
	return scheme
}

func ns(name string, terminating bool) *corev1.Namespace {
	n := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.NamespaceSpec{Finalizers: []corev1.FinalizerName{corev1.FinalizerKubernetes}}}
	if terminating {
		now := metav1.Now()
		n.DeletionTimestamp = &now
		n.Status.Phase = corev1.NamespaceTerminating
	}
	return n
}

// objsIn is one object of each served namespaced kind, the pod with a
// finalizer.
func objsIn(namespace string) []runtime.Object {
	meta := func(kind, apiVersion, name string, finalizers ...string) *metav1.PartialObjectMetadata {
		return &metav1.PartialObjectMetadata{
			TypeMeta:   metav1.TypeMeta{Kind: kind, APIVersion: apiVersion},
			ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, Finalizers: finalizers},
		}
	}
	return []runtime.Object{
		meta("Pod", "v1", "p", "example.com/hold"),
		meta("Event", "v1", "e"),
		meta("Service", "v1", "s"),
		meta("Deployment", "apps/v1", "d"),
	}
}

// finalized returns the namespace sent to namespaces/finalize, if any.
func finalized(client *fake.Clientset) *corev1.Namespace {
	for _, a := range client.Actions() {
		if a.GetSubresource() == "finalize" {
			if c, ok := a.(k8stesting.CreateAction); ok {
				return c.GetObject().(*corev1.Namespace)
			}
		}
	}
	return nil
}

func TestTerminatingNamespaceIsEmptiedThenFinalized(t *testing.T) {
	objs := append([]runtime.Object{ns("doomed", true), ns("other", false)}, objsIn("doomed")...)
	objs = append(objs, objsIn("other")...)
	c, client, meta := setup(t, objs...)
	ctx := context.Background()
	if err := c.Reconcile(ctx, "doomed"); err != nil {
		t.Fatal(err)
	}
	if f := finalized(client); f != nil {
		t.Fatal("finalized while content remained")
	}
	got, _ := client.CoreV1().Namespaces().Get(ctx, "doomed", metav1.GetOptions{})
	want := map[corev1.NamespaceConditionType]string{
		corev1.NamespaceContentRemaining:    "Some resources are remaining: deployments.apps has 1 resource instances, events. has 1 resource instances, pods. has 1 resource instances, services. has 1 resource instances",
		corev1.NamespaceFinalizersRemaining: "Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances",
	}
	for _, cond := range got.Status.Conditions {
		if msg, ok := want[cond.Type]; ok && (cond.Status != corev1.ConditionTrue || cond.Message != msg) {
			t.Errorf("%s = %+v, want True %q", cond.Type, cond, msg)
		}
	}
	if len(got.Status.Conditions) != 5 {
		t.Errorf("namespace conditions = %+v, want the 5 deletion conditions", got.Status.Conditions)
	}
	deleted := map[string]string{}
	for _, a := range meta.Actions() {
		switch a.GetVerb() {
		case "delete-collection", "delete":
			if a.GetNamespace() != "doomed" {
				t.Errorf("%s in namespace %q", a.GetVerb(), a.GetNamespace())
			}
			deleted[a.GetResource().Resource] = a.GetVerb()
		}
	}
	wantDeleted := map[string]string{"pods": "delete-collection", "events": "delete-collection", "deployments": "delete-collection", "services": "delete"}
	if !maps.Equal(deleted, wantDeleted) {
		t.Errorf("deleted %v, want %v", deleted, wantDeleted)
	}

	// The fake records deletecollection without deleting: do what the
	// server would.
	for _, o := range objsIn("doomed") {
		m := o.(*metav1.PartialObjectMetadata)
		gvr, _ := apimeta.UnsafeGuessKindToResource(m.GroupVersionKind())
		_ = meta.Resource(gvr).Namespace("doomed").Delete(ctx, m.Name, metav1.DeleteOptions{})
	}
	if err := c.Reconcile(ctx, "doomed"); err != nil {
		t.Fatal(err)
	}
	f := finalized(client)
	if f == nil {
		t.Fatal("empty terminating namespace was not finalized")
	}
	if len(f.Spec.Finalizers) != 0 {
		t.Errorf("finalize sent spec.finalizers %v, want none", f.Spec.Finalizers)
	}
	if l, _ := meta.Resource(corev1.SchemeGroupVersion.WithResource("pods")).Namespace("other").List(ctx, metav1.ListOptions{}); len(l.Items) != 1 {
		t.Errorf("pods in another namespace were touched")
	}
}

// A group discovery cannot read may hold objects: the namespace is not
// finalized, and the DiscoveryFailure condition says why.
func TestDiscoveryFailureKeepsNamespace(t *testing.T) {
	c, client, _ := setup(t, ns("doomed", true))
	client.Discovery().(*fakediscovery.FakeDiscovery).PrependReactor("get", "resource", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, errors.New("discovery is down")
	})
	if err := c.Reconcile(context.Background(), "doomed"); err == nil {
		t.Error("Reconcile succeeded with discovery down")
	}
	if f := finalized(client); f != nil {
		t.Fatal("finalized without knowing what the namespace holds")
	}
	got, _ := client.CoreV1().Namespaces().Get(context.Background(), "doomed", metav1.GetOptions{})
	for _, cond := range got.Status.Conditions {
		if cond.Type == corev1.NamespaceDeletionDiscoveryFailure && (cond.Status != corev1.ConditionTrue || cond.Reason != "DiscoveryFailed") {
			t.Errorf("NamespaceDeletionDiscoveryFailure = %+v", cond)
		}
	}
}

func TestActiveOrAlreadyFinalizedNamespaceIsLeftAlone(t *testing.T) {
	done := ns("done", true)
	done.Spec.Finalizers = nil
	objs := append([]runtime.Object{ns("live", false), done}, objsIn("live")...)
	c, client, meta := setup(t, objs...)
	for _, k := range []string{"live", "done", "missing"} {
		if err := c.Reconcile(context.Background(), k); err != nil {
			t.Fatal(err)
		}
	}
	if w := append(clienttest.Writes(client), clienttest.Writes(meta)...); len(w) != 0 {
		t.Errorf("controller wrote %v, want nothing", w)
	}
}

// Discovery is asked on every pass, as by kube's namespace controller: a
// resource served after the controller started (a custom resource) is
// emptied too.
func TestResourceServedLaterIsDeleted(t *testing.T) {
	content := func(kind, apiVersion, name string) *metav1.PartialObjectMetadata {
		return &metav1.PartialObjectMetadata{
			TypeMeta:   metav1.TypeMeta{Kind: kind, APIVersion: apiVersion},
			ObjectMeta: metav1.ObjectMeta{Namespace: "doomed", Name: name, Finalizers: []string{"example.com/hold"}},
		}
	}
	c, client, meta := setup(t, ns("doomed", true), content("Pod", "v1", "p"), content("Widget", "example.com/v1", "w"))
	ctx := context.Background()
	widgetTouched := func() bool {
		for _, a := range meta.Actions() {
			if a.GetResource().Resource == "widgets" {
				return true
			}
		}
		return false
	}
	if err := c.Reconcile(ctx, "doomed"); err != nil {
		t.Fatal(err)
	}
	if widgetTouched() {
		t.Fatal("widgets listed or deleted before discovery served them")
	}

	client.Discovery().(*fakediscovery.FakeDiscovery).Resources = append(slices.Clone(served), widgets)
	if err := c.Reconcile(ctx, "doomed"); err != nil {
		t.Fatal(err)
	}
	var deleted []string
	for _, a := range meta.Actions() {
		if d, ok := a.(k8stesting.DeleteActionImpl); ok && d.Resource.Resource == "widgets" {
			deleted = append(deleted, d.Namespace+"/"+d.Name)
		}
	}
	if !slices.Equal(deleted, []string{"doomed/w"}) {
		t.Errorf("widgets deleted %v, want doomed/w", deleted)
	}
	if f := finalized(client); f != nil {
		t.Error("finalized while the pod and the widget remained")
	}
}
