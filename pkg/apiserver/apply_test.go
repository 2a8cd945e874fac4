package apiserver

import (
	"strings"
	"testing"
)

// TestServerSideApply: apply creates a missing object (201), changes an
// existing one (200), and needs a fieldManager (422).
func TestServerSideApply(t *testing.T) {
	ts := startTestServer(t)
	const apply = "application/apply-patch+yaml"
	manifest := `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: REPLICAS
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - {name: nginx, image: nginx}
`
	path := deployments + "/web?fieldManager=test"
	code, _, body := ts.do(t, "PATCH", path, apply, strings.Replace(manifest, "REPLICAS", "2", 1))
	if code != 201 || !strings.Contains(body, `"replicas":2`) || !strings.Contains(body, `"generation":1`) {
		t.Fatalf("apply of a missing object: %d %s", code, body)
	}
	code, _, body = ts.do(t, "PATCH", path, apply, strings.Replace(manifest, "REPLICAS", "3", 1))
	if code != 200 || !strings.Contains(body, `"replicas":3`) || !strings.Contains(body, `"generation":2`) {
		t.Fatalf("apply of a change: %d %s", code, body)
	}
	code, _, body = ts.do(t, "PATCH", deployments+"/web", apply, manifest)
	if code != 422 || !strings.Contains(body, "fieldManager: Required value: is required for apply patch") {
		t.Errorf("apply without fieldManager: %d %s", code, body)
	}
}
