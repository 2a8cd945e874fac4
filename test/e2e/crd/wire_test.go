package crd

import (
	"testing"
)

// TestWireFormats: a strategic merge patch of a custom resource is 415
// with the patch types kube-apiserver's CR handler names; a client asking
// for protobuf (which custom resources have no form in) gets JSON.
func TestWireFormats(t *testing.T) {
	t.Parallel()
	s := start(t)
	createCRD(t, s, widgetCRD)
	createIn(t, s, widgetYAML("w1", "  color: blue\n"), "widget.example.com/w1 created\n")

	const unsupported = "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml"
	r := curl(t, s, "PATCH", widgetsPath+"/w1", `{"spec":{"size":2}}`, "Content-Type", "application/strategic-merge-patch+json")
	expectCurl(t, "strategic merge patch", r, `HTTP/2 415 
content-type: application/json

{
  "kind": "Status",
  "apiVersion": "v1",
  "metadata": {},
  "status": "Failure",
  "message": "`+unsupported+`",
  "reason": "UnsupportedMediaType",
  "code": 415
}`)
	// kubectl 1.37 wraps a 415 in its own words.
	const kubectlSays = "error: application/strategic-merge-patch+json is not supported by example.com/v1, Kind=Widget: " + unsupported + "\n"
	expect(t, s, "", 1, "", kubectlSays, "patch", "widget", "w1", "--type=strategic", "-p", `{"spec":{"size":2}}`)
	// Without --type kubectl sends a strategic merge patch too.
	expect(t, s, "", 1, "", kubectlSays, "patch", "widget", "w1", "-p", `{"spec":{"size":2}}`)
	expectOut(t, s, "widget.example.com/w1 patched\n", "patch", "widget", "w1", "--type=json", "-p", `[{"op":"replace","path":"/spec/size","value":2}]`)

	for _, accept := range []string{
		"application/vnd.kubernetes.protobuf",
		"application/vnd.kubernetes.protobuf, application/json",
		"application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io, application/json",
	} {
		r := curl(t, s, "GET", widgetsPath+"/w1", "", "Accept", accept)
		if r.code != 200 || r.header.Get("Content-Type") != "application/json" {
			t.Errorf("GET w1 with Accept %q: want 200 in JSON, got %s", accept, r.curlI())
		}
	}
	r = curl(t, s, "GET", widgetsPath, "", "Accept", "application/vnd.kubernetes.protobuf")
	if r.code != 200 || r.header.Get("Content-Type") != "application/json" {
		t.Errorf("list with Accept protobuf: want 200 in JSON, got %s", r.curlI())
	}
}
