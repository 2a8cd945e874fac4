package apiserver

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
)

const endpointsWarning = `299 - "v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice"`

// doHeaders sends a raw request and returns status, the Warning headers
// and the body.
func (ts *testServer) doHeaders(t *testing.T, method, path, contentType, body string, header ...string) (int, []string, string) {
	t.Helper()
	req, err := http.NewRequest(method, ts.url+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	buf := make([]byte, 4096)
	// A watch never ends: read what came with the headers and stop.
	if req.URL.Query().Get("watch") == "" {
		for {
			n, err := resp.Body.Read(buf)
			b.Write(buf[:n])
			if err != nil {
				break
			}
		}
	}
	return resp.StatusCode, resp.Header.Values("Warning"), b.String()
}

// Every request on v1 Endpoints carries kube's deprecation warning,
// whatever the verb and whether it succeeds; other kinds carry none.
func TestEndpointsDeprecationWarning(t *testing.T) {
	ts := startTestServer(t)
	const base = "/api/v1/namespaces/default/endpoints"
	ep := `{"apiVersion":"v1","kind":"Endpoints","metadata":{"name":"web"},"subsets":[{"addresses":[{"ip":"10.244.0.10"}],"ports":[{"port":8080}]}]}`
	for _, tc := range []struct {
		method, path, ctype, body string
		code                      int
		header                    []string
	}{
		{"POST", base, "application/json", ep, http.StatusCreated, nil},
		{"GET", base + "/web", "", "", http.StatusOK, nil},
		{"GET", base, "", "", http.StatusOK, nil},
		{"GET", base, "", "", http.StatusOK, []string{"Accept", "application/json;as=Table;v=v1;g=meta.k8s.io"}},
		{"GET", "/api/v1/endpoints", "", "", http.StatusOK, nil},
		{"PATCH", base + "/web", "application/merge-patch+json", `{"metadata":{"labels":{"a":"b"}}}`, http.StatusOK, nil},
		{"PUT", base + "/web", "application/json", ep, http.StatusOK, nil},
		{"GET", base + "/missing", "", "", http.StatusNotFound, nil},
		{"PATCH", base + "/web", "application/merge-patch+json", `{"subsets":[{"addresses":[{"ip":"nope"}]}]}`, http.StatusUnprocessableEntity, nil},
		{"GET", base + "?watch=1", "", "", http.StatusOK, nil},
		{"DELETE", base + "/web", "", "", http.StatusOK, nil},
		{"DELETE", base, "", "", http.StatusOK, nil},
	} {
		code, warnings, body := ts.doHeaders(t, tc.method, tc.path, tc.ctype, tc.body, tc.header...)
		if code != tc.code || len(warnings) != 1 || warnings[0] != endpointsWarning {
			t.Errorf("%s %s: %d, warnings %q; want %d with the deprecation warning (%s)", tc.method, tc.path, code, warnings, tc.code, body)
		}
	}
	for _, path := range []string{"/api/v1/namespaces/default/services", "/apis/discovery.k8s.io/v1/namespaces/default/endpointslices"} {
		if code, warnings, _ := ts.doHeaders(t, "GET", path, "", ""); code != 200 || len(warnings) != 0 {
			t.Errorf("GET %s: %d, warnings %q; want none", path, code, warnings)
		}
	}
}

// The reference's eps-bad.yaml, an immutable addressType, the Tables and
// the generation that follows the endpoints.
func TestEndpointSliceValidationTableAndGeneration(t *testing.T) {
	ts := startTestServer(t)
	const base = "/apis/discovery.k8s.io/v1/namespaces/default/endpointslices"
	code, _, body := ts.do(t, "POST", base, "application/json",
		`{"apiVersion":"discovery.k8s.io/v1","kind":"EndpointSlice","metadata":{"name":"manual"},"addressType":"IPv4","endpoints":[{"addresses":["not-an-ip"]}],"ports":[{"port":80,"protocol":"TCP"}]}`)
	want := `EndpointSlice.discovery.k8s.io \"manual\" is invalid: endpoints[0].addresses[0]: Invalid value: \"not-an-ip\": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)`
	if code != http.StatusUnprocessableEntity || !strings.Contains(body, `"message":"`+want+`"`) {
		t.Fatalf("create: %d %s", code, body)
	}
	code, _, body = ts.do(t, "POST", base, "application/json",
		`{"apiVersion":"discovery.k8s.io/v1","kind":"EndpointSlice","metadata":{"name":"manual"},"addressType":"IPv4","endpoints":[{"addresses":["10.244.0.10"]}],"ports":[{"port":80}]}`)
	if code != http.StatusCreated || !strings.Contains(body, `"generation":1`) || !strings.Contains(body, `"ports":[{"name":"","protocol":"TCP","port":80}]`) {
		t.Fatalf("create: %d %s", code, body)
	}
	code, _, body = ts.do(t, "PATCH", base+"/manual", "application/merge-patch+json", `{"addressType":"IPv6"}`)
	if code != http.StatusUnprocessableEntity || !strings.Contains(body, `addressType: Invalid value: \"IPv6\": field is immutable`) {
		t.Errorf("addressType patch: %d %s", code, body)
	}
	code, _, body = ts.do(t, "PATCH", base+"/manual", "application/merge-patch+json", `{"endpoints":[{"addresses":["10.244.0.11"]}]}`)
	if code != http.StatusOK || !strings.Contains(body, `"generation":2`) {
		t.Errorf("endpoints patch: %d %s", code, body)
	}
	code, _, body = ts.do(t, "GET", base, "", "", "Accept", "application/json;as=Table;v=v1;g=meta.k8s.io")
	if code != 200 || !regexp.MustCompile(`"cells":\["manual","IPv4","80","10.244.0.11","\d+s"\]`).MatchString(body) {
		t.Errorf("table: %d %s", code, body)
	}
}

// Discovery lists both kinds as kube-apiserver does (reference section 21).
func TestEndpointsDiscovery(t *testing.T) {
	ts := startTestServer(t)
	for path, want := range map[string]string{
		"/api/v1":                   `{"name":"endpoints","singularName":"endpoints","namespaced":true,"kind":"Endpoints","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["ep"],"storageVersionHash":"fWeeMqaN/OA="}`,
		"/apis/discovery.k8s.io/v1": `"resources":[{"name":"endpointslices","singularName":"endpointslice","namespaced":true,"kind":"EndpointSlice","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"storageVersionHash":"qgS0xkrxYAI="}]`,
	} {
		code, _, body := ts.do(t, "GET", path, "", "")
		if code != 200 || !strings.Contains(body, want) {
			t.Errorf("GET %s: %d %s\nwant %s", path, code, body, want)
		}
	}
}
