package apiserver

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

const benchDeployment = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","labels":{"app":"web"}},
"spec":{"replicas":3,"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},
"spec":{"containers":[{"name":"nginx","image":"nginx:1.27","ports":[{"containerPort":80}],"env":[{"name":"A","value":"1"},{"name":"B","value":"2"}]}]}}}}`

// BenchmarkUpdateFieldManagement measures what field management adds to
// one update of a Deployment, with it and without it (the server as it
// was before managedFields), and with the Go structs validated as
// kube-apiserver does (the server before trustedStructs), in the same
// run:
//   - steps: every step of the write but the store's commit (a dry run:
//     read, decode, the kind's rules, managedFields, encode); the CPU
//     cost of field management;
//   - http: a PUT through the handler, fsync included.
func BenchmarkUpdateFieldManagement(b *testing.B) {
	for _, name := range []string{"without-managedFields", "with-managedFields-validated", "with-managedFields"} {
		ts := startTestServer(b)
		switch name {
		case "without-managedFields":
			ts.api.fields = nil
		case "with-managedFields-validated":
			ts.api.fields.validateStructs = true
		}
		const path = "/apis/apps/v1/namespaces/default/deployments"
		if code, _, body := ts.do(b, "POST", path+"?fieldManager=bench", "application/json", benchDeployment); code != 201 {
			b.Fatalf("create: %d %s", code, body)
		}
		res, _ := ts.api.reg.Lookup(schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"})
		q := request{res: res, namespace: "default", name: "web"}
		ctx := withManager(context.Background(), "bench", "")
		b.Run("steps/"+name, func(b *testing.B) {
			i := 0
			for b.Loop() {
				i++
				_, err := ts.api.updateOnce(ctx, q, true, func(cur runtime.Object) (runtime.Object, error) {
					d := cur.(*appsv1.Deployment)
					d.Spec.Template.Spec.Containers[0].Env[0].Value = strconv.Itoa(i)
					return d, nil
				})
				if err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("http/"+name, func(b *testing.B) {
			i := 0
			for b.Loop() {
				i++
				body := fmt.Sprintf(`{"metadata":{"labels":{"app":"web","n":"%d"}}}`, i)
				code, _, out := ts.do(b, http.MethodPatch, path+"/web?fieldManager=bench", mergePatchType, body)
				if code != 200 {
					b.Fatalf("%d %s", code, out)
				}
			}
		})
	}
}
