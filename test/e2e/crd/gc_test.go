package crd

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// TestGarbageCollector: a ConfigMap owned by a Widget goes with it. The
// garbage collector learns of widgets, which appeared after it started,
// when it next reads discovery: within 30 s, as kube-controller-manager's.
func TestGarbageCollector(t *testing.T) {
	t.Parallel()
	s := start(t)
	createCRD(t, s, widgetCRD)
	createIn(t, s, widgetYAML("owner", "  color: blue\n"), "widget.example.com/owner created\n")
	uid := ok(t, s, "get", "widget", "owner", "-o", "jsonpath={.metadata.uid}").Stdout
	ctx := context.Background()
	cms := s.Client().CoreV1().ConfigMaps("default")
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "owned", OwnerReferences: []metav1.OwnerReference{{
		APIVersion: "example.com/v1", Kind: "Widget", Name: "owner", UID: types.UID(uid),
	}}}}
	if _, err := cms.Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	expectOut(t, s, "widget.example.com \"owner\" deleted from default namespace\n", "delete", "widget", "owner")
	deadline := time.Now().Add(40 * time.Second)
	for {
		_, err := cms.Get(ctx, "owned", metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the ConfigMap owned by a deleted Widget is still there after 40 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestNamespaceDeletion: deleting a namespace deletes its Widgets before
// the namespace goes.
func TestNamespaceDeletion(t *testing.T) {
	t.Parallel()
	s := start(t)
	createCRD(t, s, widgetCRD)
	ok(t, s, "create", "namespace", "doomed")
	for _, name := range []string{"a", "b"} {
		okIn(t, s, "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: "+name+"\n  namespace: doomed\nspec:\n  color: blue\n", "create", "-f", "-")
	}
	createIn(t, s, widgetYAML("survivor", "  color: blue\n"), "widget.example.com/survivor created\n")
	expectOut(t, s, "namespace \"doomed\" deleted\n", "delete", "namespace", "doomed", "--wait=false")
	eventually(t, 15*time.Second, func() string {
		if r := curl(t, s, "GET", "/api/v1/namespaces/doomed", ""); r.code != 404 {
			return "namespace doomed is still there: " + r.body
		}
		return ""
	})
	r := curl(t, s, "GET", "/apis/example.com/v1/namespaces/doomed/widgets", "")
	if r.code != 200 || !containsAll(r.body, `"items": []`) {
		t.Errorf("widgets of the deleted namespace: %s", r.curlI())
	}
	expectOut(t, s, "NAME       SIZE   COLOR\nsurvivor   1      blue\n", "get", "widgets")
}
