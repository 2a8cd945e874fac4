package apiserver

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
)

// client-go's metadata client asks for PartialObjectMetadata in protobuf
// first; its informer lists and watches that way.
func TestMetadataInformer(t *testing.T) {
	ts := startTestServer(t)
	mc, err := metadata.NewForConfig(&rest.Config{Host: ts.url})
	if err != nil {
		t.Fatal(err)
	}
	gvr := schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}
	list, err := mc.Resource(gvr).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 4 || list.Items[0].Name == "" {
		t.Fatalf("metadata list: %+v", list.Items)
	}

	ctx, cancel := context.WithCancel(context.Background())
	factory := metadatainformer.NewSharedInformerFactory(mc, 0)
	inf := factory.ForResource(gvr).Informer()
	added := make(chan string, 16)
	_, _ = inf.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: func(obj interface{}) {
		added <- obj.(*metav1.PartialObjectMetadata).Name
	}})
	factory.Start(ctx.Done())
	defer func() { cancel(); factory.Shutdown() }()
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		t.Fatal("no sync")
	}
	code, _, body := ts.do(t, "POST", "/api/v1/namespaces", jsonBody, `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"later"}}`)
	if code != 201 {
		t.Fatalf("create: %d %s", code, body)
	}
	deadline := time.After(10 * time.Second)
	for {
		select {
		case name := <-added:
			if name == "later" {
				return
			}
		case <-deadline:
			t.Fatal("the metadata informer never saw the new namespace")
		}
	}
}
