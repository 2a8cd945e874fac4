package apiserver

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// HTTP tests of content negotiation through the whole server: every kind
// of path honours q-values and answers an Accept it cannot serve with
// kube-apiserver's 406 Status.

const (
	yamlOverJSON   = "application/json;q=0.5, application/yaml"
	aggregatedJSON = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
	aggregatedYAML = "application/yaml;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
	openAPIv2Proto = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"
)

func TestAcceptQValuesOnEveryPath(t *testing.T) {
	ts := startTestServer(t)
	ts.mustDo(t, 201, "POST", configMaps, "application/json", `{"metadata":{"name":"cm1"},"data":{"k":"v"}}`)
	cases := []struct {
		name, path, accept string
		// wantType is the answer's Content-Type; wantBody a line of it.
		wantType, wantBody string
	}{
		{"object", configMaps + "/cm1", yamlOverJSON, "application/yaml", "kind: ConfigMap"},
		{"list", configMaps, yamlOverJSON, "application/yaml", "kind: ConfigMapList"},
		{"list, JSON preferred", configMaps, "application/yaml;q=0.5, application/json", "application/json", `"kind":"ConfigMapList"`},
		{"table preferred", configMaps, "application/yaml;q=0.9, " + tableOnly, "application/json", `"kind":"Table"`},
		{"table less preferred", configMaps, tableOnly + ";q=0.5, application/yaml", "application/yaml", "kind: ConfigMapList"},
		{"legacy /api", "/api", yamlOverJSON, "application/yaml", "kind: APIVersions"},
		{"legacy /apis", "/apis", yamlOverJSON, "application/yaml", "kind: APIGroupList"},
		{"legacy group version", "/apis/apps/v1", yamlOverJSON, "application/yaml", "kind: APIResourceList"},
		{"aggregated /api", "/api", aggregatedJSON + ";q=0.5, " + aggregatedYAML, aggregatedYAML, "kind: APIGroupDiscoveryList"},
		{"aggregated /apis", "/apis", aggregatedJSON + ";q=0.5, " + aggregatedYAML, aggregatedYAML, "kind: APIGroupDiscoveryList"},
		{"aggregated less preferred than legacy", "/apis", aggregatedJSON + ";q=0.5, application/json", "application/json", `"kind":"APIGroupList"`},
		// kube-openapi serves no YAML: JSON is the served type left.
		{"openapi v2", "/openapi/v2", yamlOverJSON, "application/json", `"swagger":"2.0"`},
		{"openapi v2 protobuf", "/openapi/v2", "application/json;q=0.5, " + openAPIv2Proto, "application/com.github.proto-openapi.spec.v2.v1.0+protobuf", "2.0"},
		{"openapi v3", "/openapi/v3/apis/apps/v1", yamlOverJSON, "application/json", `"openapi":"3.0.0"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, ct, body := ts.do(t, http.MethodGet, c.path, "", "", "Accept", c.accept)
			if code != http.StatusOK || ct != c.wantType || !strings.Contains(body, c.wantBody) {
				t.Errorf("%s %q: %d %q, want %q with %q:\n%.300s", c.path, c.accept, code, ct, c.wantType, c.wantBody, body)
			}
		})
	}
}

func TestAcceptNothingServedIs406(t *testing.T) {
	ts := startTestServer(t)
	ts.mustDo(t, 201, "POST", configMaps, "application/json", `{"metadata":{"name":"cm1"},"data":{"k":"v"}}`)
	const api = "only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf"
	cases := []struct{ path, accept, message string }{
		{configMaps + "/cm1", "text/html", api},
		{configMaps, "text/html, application/xml;q=0.9", api},
		{configMaps, "application/json;as=Table;v=v2;g=meta.k8s.io", api},
		{"/api", "text/html", "only the following media types are accepted: application/json, application/yaml"},
		{"/apis", "application/vnd.kubernetes.protobuf", "only the following media types are accepted: application/json, application/yaml"},
		{"/apis/apps/v1", aggregatedJSON, "only the following media types are accepted: application/json, application/yaml"},
		{"/openapi/v2", "application/yaml", "only the following media types are accepted: application/json, " + openAPIv2Proto + ", application/com.github.proto-openapi.spec.v2.v1.0+protobuf"},
		// v3 is served in protobuf too, as kube-apiserver serves it.
		{"/openapi/v3/apis/apps/v1", "application/yaml", "only the following media types are accepted: application/json, " +
			"application/com.github.proto-openapi.spec.v3.v1.0+protobuf, application/com.github.proto-openapi.spec.v3@v1.0+protobuf"},
	}
	for _, c := range cases {
		code, ct, body := ts.do(t, http.MethodGet, c.path, "", "", "Accept", c.accept)
		var st metav1.Status
		if err := json.Unmarshal([]byte(body), &st); err != nil {
			t.Errorf("%s %q: %d not a Status: %s", c.path, c.accept, code, body)
			continue
		}
		if code != http.StatusNotAcceptable || ct != "application/json" || st.Kind != "Status" ||
			st.Code != http.StatusNotAcceptable || st.Reason != metav1.StatusReasonNotAcceptable || st.Message != c.message {
			t.Errorf("%s %q: %d %q %+v\nwant 406 NotAcceptable %q", c.path, c.accept, code, ct, st, c.message)
		}
	}
}

// TestEmptyAndWildcardAcceptIsJSON: no Accept, or */*, gets JSON on every
// kind of path.
func TestEmptyAndWildcardAcceptIsJSON(t *testing.T) {
	ts := startTestServer(t)
	for _, path := range []string{configMaps, "/api", "/apis", "/apis/apps/v1", "/openapi/v2", "/openapi/v3/apis/apps/v1"} {
		for _, accept := range []string{"", "*/*", "application/*"} {
			code, ct, _ := ts.do(t, http.MethodGet, path, "", "", "Accept", accept)
			if code != http.StatusOK || ct != "application/json" {
				t.Errorf("%s %q: %d %q", path, accept, code, ct)
			}
		}
	}
}
