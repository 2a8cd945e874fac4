package discovery

import (
	"encoding/json"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/miniapi/miniapi/pkg/apiserver/registry"
)

// custom is a custom resource of example.com in version, stored in v1,
// with the status and scale subresources.
func custom(resource, kind, version string) *registry.Resource {
	return &registry.Resource{
		Group: "example.com", Version: version, Resource: resource, Kind: kind, Namespaced: true,
		Schema: &registry.Schema{StorageVersion: "v1"},
		Subresources: map[string]*registry.Subresource{
			"scale":  {Kind: schema.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "Scale"}},
			"status": {},
		},
	}
}

// TestCustomGroup: kube-apiserver lists a CRD group's versions by
// priority (v2 before v1, whichever CRD came first), a CRD's status
// before its scale, the storage version's hash in every version, and
// indents for curl.
func TestCustomGroup(t *testing.T) {
	h, err := NewHandler([]*registry.Resource{
		custom("widgets", "Widget", "v1"), custom("things", "Thing", "v2"), custom("things", "Thing", "v1"),
	})
	if err != nil {
		t.Fatal(err)
	}
	var group metav1.APIGroup
	if err := json.Unmarshal(get(t, h, "/apis/example.com", "").Body.Bytes(), &group); err != nil {
		t.Fatal(err)
	}
	if len(group.Versions) != 2 || group.Versions[0].Version != "v2" || group.PreferredVersion.Version != "v2" {
		t.Errorf("group example.com: %+v, want v2 first and preferred", group)
	}
	var list metav1.APIResourceList
	if err := json.Unmarshal(get(t, h, "/apis/example.com/v2", "").Body.Bytes(), &list); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range list.APIResources {
		names = append(names, r.Name)
	}
	if got := strings.Join(names, ","); got != "things,things/status,things/scale" {
		t.Errorf("example.com/v2 lists %s, want things,things/status,things/scale", got)
	}
	if h := list.APIResources[0].StorageVersionHash; h != storageVersionHash("example.com", "v1", "Thing") {
		t.Errorf("storageVersionHash of things in v2 is %s, want the v1 (storage) one", h)
	}
	rec := get(t, h, "/apis/example.com", "", "User-Agent", "curl/8.5.0")
	if !strings.HasPrefix(rec.Body.String(), "{\n  \"kind\": \"APIGroup\",\n") {
		t.Errorf("/apis/example.com for curl is not indented: %q", rec.Body.String())
	}
}
