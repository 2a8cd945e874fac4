package testenv

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
)

// TestCRDsInMemoryAndFromDirectory: a CRD passed in CRDs and those read
// from a directory (multi-document YAML, JSON; a ConfigMap document and a
// .txt file skipped) are served when Start returns, so that a dynamic
// client creates custom resources at once, with no retry; CRDs then lists
// every CRD installed.
func TestCRDsInMemoryAndFromDirectory(t *testing.T) {
	env := &Environment{
		CRDs:              []*apiextensionsv1.CustomResourceDefinition{generatedCRD("things.test.example.com", "Thing")},
		CRDDirectoryPaths: []string{"testdata/crds"},
	}
	if _, err := env.Start(); err != nil {
		t.Fatal(err)
	}
	defer stop(t, env)
	if env.Config.QPS != 1000 || env.Config.Burst != 2000 {
		t.Errorf("Config QPS %v, Burst %d; want envtest's 1000, 2000", env.Config.QPS, env.Config.Burst)
	}
	dyn, err := dynamic.NewForConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, cr := range []struct {
		gvr       schema.GroupVersionResource
		kind, ns  string
		accepted  bool // false: the schema must reject it
		spec      map[string]any
		whyReject string
	}{
		{gvr: gvr("test.example.com", "v1", "things"), kind: "Thing", ns: "default", accepted: true, spec: map[string]any{"size": int64(3)}},
		{gvr: gvr("test.example.com", "v1", "things"), kind: "Thing", ns: "default", spec: map[string]any{"size": int64(11)}, whyReject: "size must be at most 10"},
		{gvr: gvr("example.com", "v1", "widgets"), kind: "Widget", ns: "default", accepted: true, spec: map[string]any{"size": int64(1)}},
		{gvr: gvr("example.com", "v1", "widgets"), kind: "Widget", ns: "default", spec: map[string]any{"size": int64(-1)}, whyReject: "spec.size"},
		{gvr: gvr("example.com", "v1alpha1", "gadgets"), kind: "Gadget", accepted: true},
		{gvr: gvr("example.com", "v1", "gizmos"), kind: "Gizmo", ns: "default", accepted: true},
	} {
		name := fmt.Sprintf("%s-%v", strings.ToLower(cr.kind), cr.accepted)
		obj := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": cr.gvr.GroupVersion().String(), "kind": cr.kind,
			"metadata": map[string]any{"name": name},
		}}
		if cr.spec != nil {
			obj.Object["spec"] = cr.spec
		}
		_, err := dyn.Resource(cr.gvr).Namespace(cr.ns).Create(ctx, obj, metav1.CreateOptions{})
		switch {
		case cr.accepted && err != nil:
			t.Errorf("create %s %s: %v", cr.gvr, name, err)
		case !cr.accepted && (!apierrors.IsInvalid(err) || !strings.Contains(err.Error(), cr.whyReject)):
			t.Errorf("create %s %s: %v; want Invalid naming %q", cr.gvr, name, err, cr.whyReject)
		}
	}

	var names []string
	for _, crd := range env.CRDs {
		names = append(names, crd.Name)
	}
	want := []string{"things.test.example.com", "gizmos.example.com", "widgets.example.com", "gadgets.example.com"}
	if !slices.Equal(names, want) {
		t.Errorf("env.CRDs after Start = %v; want %v", names, want)
	}
	if _, err := clientset(t, env).CoreV1().ConfigMaps("default").Get(ctx, "not-a-crd", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the ConfigMap in the CRD directory: %v; want NotFound (not a CRD, skipped)", err)
	}
}

// TestCRDPathMissing: a missing path is skipped, unless
// ErrorIfCRDPathMissing asks for an error.
func TestCRDPathMissing(t *testing.T) {
	paths := []string{"testdata/crds", "testdata/no-such-dir"}
	env := &Environment{CRDDirectoryPaths: paths}
	if _, err := env.Start(); err != nil {
		t.Fatalf("without ErrorIfCRDPathMissing: %v", err)
	}
	stop(t, env)
	if len(env.CRDs) != 3 {
		t.Errorf("installed %d CRDs; want the directory's 3", len(env.CRDs))
	}

	env = &Environment{CRDDirectoryPaths: paths, ErrorIfCRDPathMissing: true}
	_, err := env.Start()
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "testdata/no-such-dir") {
		t.Errorf("with ErrorIfCRDPathMissing: %v; want a not-exist error naming the path", err)
	}
	if env.srv != nil {
		stop(t, env)
		t.Error("Start failed but left the server running")
	}
}

// TestCRDBadFile: a file that does not decode fails Start with an error
// that names the file and the document.
func TestCRDBadFile(t *testing.T) {
	env := &Environment{CRDDirectoryPaths: []string{"testdata/bad"}}
	_, err := env.Start()
	if err == nil {
		stop(t, env)
		t.Fatal("Start succeeded with a broken CRD file")
	}
	for _, want := range []string{"testdata/bad/broken.yaml", "document 2", "versions"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}

// TestCRDRejectedNamesFailFast: a CRD whose kind another CRD of its group
// holds is never served; Start says so at once instead of waiting out
// its timeout.
func TestCRDRejectedNamesFailFast(t *testing.T) {
	second := generatedCRD("others.test.example.com", "Thing")
	second.Spec.Names.Plural, second.Spec.Names.Singular = "others", "other"
	env := &Environment{CRDs: []*apiextensionsv1.CustomResourceDefinition{generatedCRD("things.test.example.com", "Thing"), second}}
	_, err := env.Start()
	if err == nil {
		stop(t, env)
		t.Fatal("Start succeeded with two CRDs of one kind")
	}
	if !strings.Contains(err.Error(), "others.test.example.com") || !strings.Contains(err.Error(), "KindConflict") {
		t.Errorf("error %q; want the rejected CRD's name and KindConflict", err)
	}
	if errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Start waited out its timeout: %v", err)
	}
}

// TestInstallUpdatesExistingCRD: installing a CRD that exists updates it
// (here: a new served version) and waits for the new version too.
func TestInstallUpdatesExistingCRD(t *testing.T) {
	crd := generatedCRD("things.test.example.com", "Thing")
	env := &Environment{CRDs: []*apiextensionsv1.CustomResourceDefinition{crd}}
	if _, err := env.Start(); err != nil {
		t.Fatal(err)
	}
	defer stop(t, env)
	changed := crd.DeepCopy()
	v2 := changed.Spec.Versions[0]
	v2.Name, v2.Storage = "v2", false
	changed.Spec.Versions = append(changed.Spec.Versions, v2)
	if err := installCRDs(context.Background(), env.Config, []*apiextensionsv1.CustomResourceDefinition{changed}); err != nil {
		t.Fatal(err)
	}
	dyn, err := dynamic.NewForConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dyn.Resource(gvr("test.example.com", "v2", "things")).Namespace("default").List(context.Background(), metav1.ListOptions{}); err != nil {
		t.Errorf("list v2 things after the update: %v", err)
	}
}

func gvr(group, version, resource string) schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: group, Version: version, Resource: resource}
}

// TestCRDOwnersGarbageCollected: with Controllers, the garbage collector
// collects the dependents of a custom resource. It discovers resources
// once, when it starts, so this holds because Start installs the CRDs
// before the controllers start.
func TestCRDOwnersGarbageCollected(t *testing.T) {
	env := &Environment{Controllers: true, CRDs: []*apiextensionsv1.CustomResourceDefinition{generatedCRD("things.test.example.com", "Thing")}}
	if _, err := env.Start(); err != nil {
		t.Fatal(err)
	}
	defer stop(t, env)
	dyn, err := dynamic.NewForConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	things := dyn.Resource(gvr("test.example.com", "v1", "things")).Namespace("default")
	owner, err := things.Create(ctx, &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "test.example.com/v1", "kind": "Thing",
		"metadata": map[string]any{"name": "owner"}, "spec": map[string]any{"size": int64(1)},
	}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c := clientset(t, env)
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "owned", OwnerReferences: []metav1.OwnerReference{{
		APIVersion: "test.example.com/v1", Kind: "Thing", Name: owner.GetName(), UID: owner.GetUID(),
	}}}}
	if _, err := c.CoreV1().ConfigMaps("default").Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := things.Delete(ctx, "owner", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the garbage collector to delete the Thing's ConfigMap", func() bool {
		_, err := c.CoreV1().ConfigMaps("default").Get(ctx, "owned", metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	})
}
