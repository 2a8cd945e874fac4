package apiserver

import (
	"net/http/httptest"
	"testing"
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
