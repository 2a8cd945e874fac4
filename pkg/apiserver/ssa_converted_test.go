package apiserver

import (
	"encoding/json"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// apiVersionsOf reads the managedFields of a JSON object as "manager
// apiVersion" lines.
func apiVersionsOf(t *testing.T, body string) string {
	t.Helper()
	var obj struct {
		Metadata metav1.ObjectMeta `json:"metadata"`
	}
	if err := json.Unmarshal([]byte(body), &obj); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	var out []string
	for _, e := range obj.Metadata.ManagedFields {
		out = append(out, e.Manager+" "+e.APIVersion)
	}
	return strings.Join(out, "\n")
}

// TestApplyToConvertedKinds: server-side apply works on the resources
// kept as another version's objects (events.k8s.io/v1 Events as core/v1,
// autoscaling/v1 HPAs as autoscaling/v2), and ownership carries across
// the versions as in kube-apiserver: an entry written through one version
// conflicts with an apply through the other.
func TestApplyToConvertedKinds(t *testing.T) {
	ts := startTestServer(t)

	const eventsV1 = "/apis/events.k8s.io/v1/namespaces/default/events/e1"
	code, _, body := ts.do(t, "PATCH", eventsV1+"?fieldManager=alice", applyYAML, `apiVersion: events.k8s.io/v1
kind: Event
metadata: {name: e1}
eventTime: "2026-12-02T10:00:00.000000Z"
reportingController: example.com/alice
reportingInstance: alice-1
action: Check
reason: Checked
type: Normal
regarding: {kind: Pod, name: p, namespace: default}
`)
	if code != 201 {
		t.Fatalf("apply of an events.k8s.io/v1 Event: %d %s", code, body)
	}
	wantEntries(t, "events.k8s.io/v1 apply", body,
		`alice Apply  {"f:action":{},"f:eventTime":{},"f:reason":{},"f:regarding":{},"f:reportingController":{},"f:reportingInstance":{},"f:type":{}}`)
	if got := apiVersionsOf(t, body); got != "alice events.k8s.io/v1" {
		t.Errorf("entry versions: %q", got)
	}
	_, _, core := ts.do(t, "GET", "/api/v1/namespaces/default/events/e1", "", "")
	if got := apiVersionsOf(t, core); got != "alice events.k8s.io/v1" {
		t.Errorf("core/v1 read of the same event: entry versions %q", got)
	}
	code, _, body = ts.do(t, "PATCH", "/api/v1/namespaces/default/events/e1?fieldManager=bob", applyYAML, `apiVersion: v1
kind: Event
metadata: {name: e1}
reason: Other
involvedObject: {kind: Pod, name: p, namespace: default}
`)
	if code != 409 || !strings.Contains(body, `Apply failed with 1 conflict: conflict with \"alice\": .reason`) {
		t.Errorf("core/v1 apply of alice's reason: %d %s", code, body)
	}

	const hpaV1 = "/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers/h1"
	const hpaV2 = "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers/h1"
	code, _, body = ts.do(t, "PATCH", hpaV1+"?fieldManager=alice", applyYAML, `apiVersion: autoscaling/v1
kind: HorizontalPodAutoscaler
metadata: {name: h1}
spec:
  maxReplicas: 3
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
`)
	if code != 201 {
		t.Fatalf("apply of an autoscaling/v1 HPA: %d %s", code, body)
	}
	const bobV2 = `apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: h1}
spec:
  maxReplicas: 5
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
`
	code, _, body = ts.do(t, "PATCH", hpaV2+"?fieldManager=bob", applyYAML, bobV2)
	if code != 409 || !strings.Contains(body, `conflict with \"alice\": .spec.maxReplicas`) {
		t.Errorf("autoscaling/v2 apply of alice's maxReplicas: %d %s", code, body)
	}
	code, _, body = ts.do(t, "PATCH", hpaV2+"?fieldManager=bob&force=true", applyYAML, bobV2)
	if code != 200 {
		t.Fatalf("forced apply: %d %s", code, body)
	}
	wantEntries(t, "after bob's forced apply", body,
		`alice Apply  {"f:spec":{"f:scaleTargetRef":{}}}`,
		`bob Apply  {"f:spec":{"f:maxReplicas":{},"f:scaleTargetRef":{"f:apiVersion":{},"f:kind":{},"f:name":{}}}}`)
	if got := apiVersionsOf(t, body); got != "alice autoscaling/v1\nbob autoscaling/v2" {
		t.Errorf("entry versions: %q", got)
	}
	_, _, body = ts.do(t, "GET", hpaV1, "", "")
	if !strings.Contains(body, `"maxReplicas":5`) && !strings.Contains(body, `"maxReplicas": 5`) {
		t.Errorf("autoscaling/v1 read after the forced apply: %s", body)
	}
}
