package apiserver

import (
	"net/http/httptest"
	"testing"

	"github.com/miniapi/miniapi/pkg/apiserver/registry"
)

func TestNegotiate(t *testing.T) {
	cases := []struct {
		accept string
		format format
		view   view
		fail   bool
	}{
		{"", formatJSON, viewObject, false},
		{"application/json", formatJSON, viewObject, false},
		{"application/json, */*", formatJSON, viewObject, false},
		{"application/vnd.kubernetes.protobuf,application/json", formatProtobuf, viewObject, false},
		{"application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json", formatJSON, viewTable, false},
		{"application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json", formatJSON, viewObject, false},
		{"application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json", formatProtobuf, viewPartial, false},
		{"application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json", formatJSON, viewPartial, false},
		{"application/yaml", formatYAML, viewObject, false},
		{"application/json;q=0.5, application/yaml", formatYAML, viewObject, false},
		{"application/yaml;q=0.5, application/json;as=Table;v=v1;g=meta.k8s.io", formatJSON, viewTable, false},
		{"application/json;as=Table;v=v1;g=meta.k8s.io;q=0.5, application/vnd.kubernetes.protobuf", formatProtobuf, viewObject, false},
		{"application/yaml;as=Table;v=v1;g=meta.k8s.io", 0, 0, true},
		{"text/html", 0, 0, true},
	}
	for _, c := range cases {
		r := httptest.NewRequest("GET", "/api/v1/pods", nil)
		r.Header.Set("Accept", c.accept)
		out, err := negotiate(r, nil)
		if (err != nil) != c.fail {
			t.Errorf("%q: err %v", c.accept, err)
			continue
		}
		if !c.fail && (out.format != c.format || out.view != c.view) {
			t.Errorf("%q: format %d view %d, want %d %d", c.accept, out.format, out.view, c.format, c.view)
		}
	}
}

// TestNegotiateCustomResource: a custom resource has no protobuf form; a
// client that prefers protobuf gets JSON, as kube-apiserver answers it
// (test/e2e/crd replays the reference).
func TestNegotiateCustomResource(t *testing.T) {
	res := &registry.Resource{Schema: &registry.Schema{}}
	r := httptest.NewRequest("GET", "/apis/example.com/v1/widgets", nil)
	for _, accept := range []string{"application/vnd.kubernetes.protobuf", "application/vnd.kubernetes.protobuf, application/yaml;q=0.9"} {
		r.Header.Set("Accept", accept)
		if out, err := negotiate(r, res); err != nil || out.format != formatJSON {
			t.Errorf("%s: %v %v, want JSON", accept, out.format, err)
		}
	}
	r.Header.Set("Accept", "application/yaml, application/vnd.kubernetes.protobuf;q=0.9")
	if out, err := negotiate(r, res); err != nil || out.format != formatYAML {
		t.Errorf("YAML then protobuf: %v %v, want YAML", out.format, err)
	}
	r.Header.Set("Accept", "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1")
	if out, err := negotiate(r, res); err != nil || out.format != formatProtobuf || out.view != viewPartial {
		t.Errorf("metadata in protobuf: %v %v %v", out.format, out.view, err)
	}
}
