package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

func mustUnstructured(t *testing.T, s string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	if err := json.Unmarshal([]byte(s), &u.Object); err != nil {
		t.Fatal(err)
	}
	return u
}

func TestModifiedConfigurationEmbedsItself(t *testing.T) {
	obj := mustUnstructured(t, `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"a"}}`)
	withAnn, err := modifiedConfiguration(obj, true)
	if err != nil {
		t.Fatal(err)
	}
	// kubectl's annotation text: the object with an empty annotations map,
	// keys sorted, ending in a newline.
	wantAnn := `{"apiVersion":"v1","kind":"Namespace","metadata":{"annotations":{},"name":"a"}}` + "\n"
	var got map[string]interface{}
	if err := json.Unmarshal(withAnn, &got); err != nil {
		t.Fatal(err)
	}
	ann := got["metadata"].(map[string]interface{})["annotations"].(map[string]interface{})[lastAppliedAnnotation]
	if ann != wantAnn {
		t.Fatalf("annotation = %q, want %q", ann, wantAnn)
	}
	if _, ok := obj.GetAnnotations()[lastAppliedAnnotation]; ok {
		t.Fatalf("object was left modified: %v", obj.GetAnnotations())
	}
}

func TestApplyPatchThreeWay(t *testing.T) {
	gvk := schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
	original := []byte(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","labels":{"a":"1","gone":"x"}},` +
		`"spec":{"replicas":2,"template":{"spec":{"containers":[{"name":"c","image":"nginx"}]}}}}`)
	newManifest := mustUnstructured(t, `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","labels":{"a":"1"}},`+
		`"spec":{"replicas":3,"template":{"spec":{"containers":[{"name":"c","image":"nginx:2"}]}}}}`)
	modified, err := modifiedConfiguration(newManifest, true)
	if err != nil {
		t.Fatal(err)
	}
	current := []byte(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","labels":{"a":"1","gone":"x","live":"y"},` +
		`"annotations":{"deployment.kubernetes.io/revision":"1"}},` +
		`"spec":{"replicas":2,"template":{"spec":{"containers":[{"name":"c","image":"nginx","imagePullPolicy":"Always"}]}}},"status":{"replicas":2}}`)
	patch, pt, err := applyPatch(gvk, original, modified, current)
	if err != nil {
		t.Fatal(err)
	}
	if pt != types.StrategicMergePatchType {
		t.Fatalf("patch type %s", pt)
	}
	var p map[string]interface{}
	if err := json.Unmarshal(patch, &p); err != nil {
		t.Fatal(err)
	}
	labels := p["metadata"].(map[string]interface{})["labels"].(map[string]interface{})
	if v, ok := labels["gone"]; !ok || v != nil {
		t.Errorf("label removed from the manifest must be deleted: %s", patch)
	}
	if _, ok := labels["live"]; ok {
		t.Errorf("label added by someone else must be kept: %s", patch)
	}
	if p["spec"].(map[string]interface{})["replicas"] != float64(3) {
		t.Errorf("replicas not patched: %s", patch)
	}
	if !strings.Contains(string(patch), `"$setElementOrder/containers":[{"name":"c"}]`) || !strings.Contains(string(patch), `"image":"nginx:2"`) {
		t.Errorf("containers must merge by name: %s", patch)
	}
	if strings.Contains(string(patch), "imagePullPolicy") || strings.Contains(string(patch), "status") {
		t.Errorf("fields the manifest never set must be left alone: %s", patch)
	}
}

func TestApplyPatchUnchanged(t *testing.T) {
	gvk := schema.GroupVersionKind{Version: "v1", Kind: "Namespace"}
	obj := mustUnstructured(t, `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"a"}}`)
	modified, _ := modifiedConfiguration(obj, true)
	if err := setLastApplied(obj); err != nil {
		t.Fatal(err)
	}
	obj.Object["status"] = map[string]interface{}{"phase": "Active"}
	current, _ := obj.MarshalJSON()
	original := []byte(obj.GetAnnotations()[lastAppliedAnnotation])
	patch, _, err := applyPatch(gvk, original, modified, current)
	if err != nil || string(patch) != "{}" {
		t.Fatalf("patch = %s, %v; want {}", patch, err)
	}
}

func TestApplyPatchUnregisteredKindUsesMergePatch(t *testing.T) {
	gvk := schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}
	_, pt, err := applyPatch(gvk, []byte(`{"a":1}`), []byte(`{"a":2}`), []byte(`{"a":1}`))
	if err != nil || pt != types.MergePatchType {
		t.Fatalf("got %s %v", pt, err)
	}
}
