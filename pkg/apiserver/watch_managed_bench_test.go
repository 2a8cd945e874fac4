package apiserver

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/miniapi/miniapi/pkg/storage"
)

// BenchmarkWatchEventManagedFields is the server's cost of sending one pod
// event to a JSON and to a protobuf watcher, for a pod without
// managedFields and for the same pod with the entry its creator's field
// manager writes, so that the cost of managedFields on watches is the
// ratio of the two in one run.
func BenchmarkWatchEventManagedFields(b *testing.B) {
	pods, _ := builtinRegistry(b).Lookup(schema.GroupVersionResource{Version: "v1", Resource: "pods"})
	const meta = `"name":"web-0","namespace":"default","uid":"0b0e5c4e-8a7b-4c1e-9d1f-2f2d4f3a1b2c","creationTimestamp":"2026-11-29T21:00:00Z","labels":{"app":"web"}`
	const rest = `},"spec":{"containers":[{"name":"c","image":"nginx","resources":{},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File","imagePullPolicy":"Always"}],"restartPolicy":"Always","terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst","securityContext":{},"schedulerName":"default-scheduler","enableServiceLinks":true},"status":{"phase":"Pending"}}`
	const managed = `,"managedFields":[{"manager":"kube-controller-manager","operation":"Update","apiVersion":"v1","time":"2026-11-29T21:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{".":{},"f:app":{}}},"f:spec":{"f:containers":{"k:{\"name\":\"c\"}":{".":{},"f:image":{},"f:imagePullPolicy":{},"f:name":{},"f:resources":{},"f:terminationMessagePath":{},"f:terminationMessagePolicy":{}}},"f:dnsPolicy":{},"f:enableServiceLinks":{},"f:restartPolicy":{},"f:schedulerName":{},"f:securityContext":{},"f:terminationGracePeriodSeconds":{}}}}]`
	values := map[string][]byte{
		"without-managedFields": []byte(`{"metadata":{` + meta + rest),
		"with-managedFields":    []byte(`{"metadata":{` + meta + managed + rest),
	}
	for _, f := range []struct {
		name   string
		format format
	}{{"json", formatJSON}, {"protobuf", formatProtobuf}} {
		for _, v := range []string{"without-managedFields", "with-managedFields"} {
			b.Run(f.name+"/"+v, func(b *testing.B) {
				s := &Server{}
				ww := s.newWatchWriter(&discardFlusher{h: http.Header{}}, httptest.NewRequest("GET", "/", nil), output{format: f.format, view: viewObject}, request{res: pods},
					watchParams{sel: selector{labels: labels.Everything(), fields: fields.Everything()}})
				rev := int64(1)
				for b.Loop() {
					rev++
					ev := storage.Event{Type: storage.Put, KV: storage.KV{Key: "/core/pods/default/web-0", Value: values[v], CreateRevision: 1, ModRevision: rev}}
					if err := ww.event(ev); err != nil {
						b.Fatal(err)
					}
					if err := ww.flush(); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
