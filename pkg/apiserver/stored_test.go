package apiserver

import (
	"encoding/json"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/miniapi/miniapi/pkg/apiserver/registry"
)

func TestSpliceRV(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"after uid", `{"metadata":{"name":"a","uid":"u-1","generation":1},"spec":{}}`,
			`{"metadata":{"name":"a","uid":"u-1","resourceVersion":"42","generation":1},"spec":{}}`},
		{"no uid", `{"metadata":{"name":"a"},"spec":{}}`,
			`{"metadata":{"resourceVersion":"42","name":"a"},"spec":{}}`},
		{"empty metadata", `{"metadata":{}}`, `{"metadata":{"resourceVersion":"42"}}`},
		{"uid-like text later", `{"metadata":{"name":"a","uid":"u"},"data":"\"uid\":\"x\""}`,
			`{"metadata":{"name":"a","uid":"u","resourceVersion":"42"},"data":"\"uid\":\"x\""}`},
	}
	for _, c := range cases {
		if got := string(spliceRV([]byte(c.in), 42)); got != c.want {
			t.Errorf("%s: got %s want %s", c.name, got, c.want)
		}
	}
}

// TestStoredRoundTrip: what the store keeps has no kind, apiVersion or
// resourceVersion, and splicing gives the bytes encoding/json would.
func TestStoredRoundTrip(t *testing.T) {
	d := &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{Kind: "Deployment", APIVersion: "apps/v1"},
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", UID: "abc", ResourceVersion: "9", Generation: 2},
	}
	stored, err := encodeForStore(&registry.Resource{}, d)
	if err != nil {
		t.Fatal(err)
	}
	if d.ResourceVersion != "9" || d.Kind != "Deployment" {
		t.Fatalf("encodeForStore changed the object: %+v", d)
	}
	var probe map[string]any
	_ = json.Unmarshal(stored, &probe)
	if _, ok := probe["kind"]; ok {
		t.Errorf("stored bytes keep kind: %s", stored)
	}
	want, _ := json.Marshal(d)
	got := withTypeMeta(d.GroupVersionKind(), spliceRV(stored, 9))
	if string(got) != string(want) {
		t.Errorf("spliced\n%s\nwant\n%s", got, want)
	}
}
