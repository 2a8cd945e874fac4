package apiserver

import (
	"fmt"
	"testing"
)

// benchPodJSON is the pod the bench's watch workload creates: labels, an
// annotation, one container with a port, env and resources.
const benchPodJSON = `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"pod-%07d","labels":{"app":"bench","tier":"web","shard":"%d"},
"annotations":{"bench.miniapi.io/note":"created by the miniapi benchmark"}},"spec":{"nodeName":"parked","tolerations":[{"operator":"Exists"}],
"containers":[{"name":"web","image":"registry.example/web:1.2.3","ports":[{"name":"http","containerPort":8080,"protocol":"TCP"}],
"env":[{"name":"POD_INDEX","value":"%d"},{"name":"LOG_LEVEL","value":"info"}],
"resources":{"requests":{"cpu":"100m","memory":"64Mi"},"limits":{"memory":"128Mi"}}}]}}`

// BenchmarkCreateFieldManagement measures what field management adds to
// one pod create, with it and without it (the server as it was before
// managedFields), in the same run: a dry-run POST through the handler,
// every step of the create but the store's commit.
func BenchmarkCreateFieldManagement(b *testing.B) {
	for _, name := range []string{"without-managedFields", "with-managedFields"} {
		ts := startTestServer(b)
		if name == "without-managedFields" {
			ts.api.fields = nil
		}
		b.Run(name, func(b *testing.B) {
			i := 0
			for b.Loop() {
				i++
				body := fmt.Sprintf(benchPodJSON, i, i%10, i)
				code, _, out := ts.do(b, "POST", "/api/v1/namespaces/default/pods?dryRun=All&fieldManager=bench", "application/json", body)
				if code != 201 {
					b.Fatalf("%d %s", code, out)
				}
			}
		})
	}
}
