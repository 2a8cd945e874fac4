package crd

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"
)

var widgetsGVR = schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}

// seen is one informer notification: its kind and the object's name and
// spec.size.
type seen struct {
	what, name string
	size       int64
}

func seenOf(what string, obj any) seen {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	u, _ := obj.(*unstructured.Unstructured)
	if u == nil {
		return seen{what: what}
	}
	size, _, _ := unstructured.NestedInt64(u.Object, "spec", "size")
	return seen{what, u.GetName(), size}
}

// TestDynamicInformer: client-go's dynamic informer lists and watches
// widgets, syncs, and sees an add, an update and a delete.
func TestDynamicInformer(t *testing.T) {
	t.Parallel()
	s := start(t)
	createCRD(t, s, widgetCRD)
	createIn(t, s, widgetYAML("before", "  color: blue\n"), "widget.example.com/before created\n")

	client, err := dynamic.NewForConfig(s.Config())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	factory := dynamicinformer.NewFilteredDynamicSharedInformerFactory(client, 0, "default", nil)
	informer := factory.ForResource(widgetsGVR).Informer()
	events := make(chan seen, 20)
	if _, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { events <- seenOf("add", obj) },
		UpdateFunc: func(_, obj any) { events <- seenOf("update", obj) },
		DeleteFunc: func(obj any) { events <- seenOf("delete", obj) },
	}); err != nil {
		t.Fatal(err)
	}
	factory.Start(ctx.Done())
	defer func() { cancel(); factory.Shutdown() }() // Shutdown waits for the informers, which stop with ctx
	if !cache.WaitForCacheSync(ctx.Done(), informer.HasSynced) {
		t.Fatal("the widgets informer did not sync")
	}
	expectSeen(t, events, seen{"add", "before", 1})

	widgets := client.Resource(widgetsGVR).Namespace("default")
	w := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "example.com/v1", "kind": "Widget",
		"metadata": map[string]any{"name": "w1"},
		"spec":     map[string]any{"color": "red", "size": int64(2)},
	}}
	created, err := widgets.Create(ctx, w, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	expectSeen(t, events, seen{"add", "w1", 2})
	if err := unstructured.SetNestedField(created.Object, int64(8), "spec", "size"); err != nil {
		t.Fatal(err)
	}
	if _, err := widgets.Update(ctx, created, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	expectSeen(t, events, seen{"update", "w1", 8})
	if err := widgets.Delete(ctx, "w1", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	expectSeen(t, events, seen{"delete", "w1", 8})
	if got := len(informer.GetStore().ListKeys()); got != 1 {
		t.Errorf("informer cache holds %d widgets, want 1: %v", got, informer.GetStore().ListKeys())
	}
}

func expectSeen(t *testing.T, events <-chan seen, want seen) {
	t.Helper()
	select {
	case got := <-events:
		if got != want {
			t.Fatalf("informer saw %+v, want %+v", got, want)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("informer saw nothing within 10s, want %+v", want)
	}
}
