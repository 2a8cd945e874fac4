package cli

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func unstructuredFrom(t *testing.T, obj map[string]any) *unstructured.Unstructured {
	t.Helper()
	return &unstructured.Unstructured{Object: obj}
}

func podTemplateObject(kind, apiVersion string) map[string]any {
	template := map[string]any{"spec": map[string]any{
		"initContainers": []any{map[string]any{"name": "init", "image": "busybox"}},
		"containers":     []any{map[string]any{"name": "app", "image": "nginx"}, map[string]any{"name": "side", "image": "redis"}},
	}}
	spec := map[string]any{"template": template}
	if kind == "CronJob" {
		spec = map[string]any{"jobTemplate": map[string]any{"spec": spec}}
	}
	return map[string]any{"apiVersion": apiVersion, "kind": kind, "metadata": map[string]any{"name": "x"}, "spec": spec}
}

func TestImagePatchKinds(t *testing.T) {
	kinds := map[string]string{
		"Deployment": "apps/v1", "ReplicaSet": "apps/v1", "StatefulSet": "apps/v1", "DaemonSet": "apps/v1",
		"Job": "batch/v1", "CronJob": "batch/v1", "ReplicationController": "v1",
	}
	for kind, av := range kinds {
		_, patch, missing, err := imagePatch(unstructuredFrom(t, podTemplateObject(kind, av)), map[string]string{"app": "nginx:2"}, "")
		if err != nil || len(missing) != 0 {
			t.Errorf("%s: %v %v", kind, err, missing)
			continue
		}
		// A strategic merge patch: the container by its merge key, and
		// the list's order directive.
		for _, want := range []string{`"$setElementOrder/containers":[{"name":"app"},{"name":"side"}]`, `{"image":"nginx:2","name":"app"}`} {
			if !strings.Contains(string(patch), want) {
				t.Errorf("%s: patch %s lacks %s", kind, patch, want)
			}
		}
	}
}

func TestImagePatchPodWildcardAndMissing(t *testing.T) {
	pod := map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": "p"}, "spec": map[string]any{
		"initContainers": []any{map[string]any{"name": "init", "image": "busybox"}},
		"containers":     []any{map[string]any{"name": "app", "image": "nginx"}},
	}}
	_, patch, missing, err := imagePatch(unstructuredFrom(t, pod), map[string]string{"*": "img"}, "")
	if err != nil || len(missing) != 0 {
		t.Fatalf("%v %v", err, missing)
	}
	if !strings.Contains(string(patch), `"initContainers":[{"image":"img","name":"init"}]`) || !strings.Contains(string(patch), `{"image":"img","name":"app"}`) {
		t.Errorf("wildcard patch: %s", patch)
	}
	_, patch, missing, err = imagePatch(unstructuredFrom(t, pod), map[string]string{"nope": "img"}, "")
	if err != nil || len(missing) != 1 || missing[0].Error() != `error: unable to find container named "nope"` {
		t.Errorf("missing container: %v %v", err, missing)
	}
	if string(patch) != "{}" {
		t.Errorf("nothing changed, patch %s", patch)
	}
}

func TestImagePatchNoTemplate(t *testing.T) {
	svc := map[string]any{"apiVersion": "v1", "kind": "Service", "metadata": map[string]any{"name": "s"}}
	_, _, _, err := imagePatch(unstructuredFrom(t, svc), map[string]string{"a": "b"}, "")
	if err == nil || err.Error() != "the object is not a pod or does not have a pod template: *v1.Service" {
		t.Errorf("got %v", err)
	}
}

func TestParseImagePairs(t *testing.T) {
	got, err := parseImagePairs([]string{"a=b:1", "c=d=e"})
	if err != nil || got["a"] != "b:1" || got["c"] != "d=e" {
		t.Errorf("got %v %v", got, err)
	}
	if _, err := parseImagePairs([]string{"a-", "=b", "c=d"}); err == nil || err.Error() != "invalid image format: a-, =b" {
		t.Errorf("got %v", err)
	}
}
