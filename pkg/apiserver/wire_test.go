package apiserver

import (
	"strings"
	"testing"
)

const webDeployment = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"nginx","image":"nginx"}]}}}}`

const deployments = "/apis/apps/v1/namespaces/default/deployments"

// TestWireErrors checks the exact Status bodies of wire-samples.md.
func TestWireErrors(t *testing.T) {
	ts := startTestServer(t)
	if code, _, body := ts.do(t, "POST", deployments, "application/json", webDeployment); code != 201 {
		t.Fatalf("create: %d %s", code, body)
	}
	cases := []struct {
		name, method, path, ct, body string
		code                         int
		want                         string
	}{
		{"get missing", "GET", deployments + "/nope", "", "", 404,
			`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"deployments.apps \"nope\" not found","reason":"NotFound","details":{"name":"nope","group":"apps","kind":"deployments"},"code":404}`},
		{"already exists", "POST", deployments, "application/json", webDeployment, 409,
			`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"deployments.apps \"web\" already exists","reason":"AlreadyExists","details":{"name":"web","group":"apps","kind":"deployments"},"code":409}`},
		{"malformed json", "POST", deployments, "application/json", `{"apiVersion":`, 400,
			`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the object provided is unrecognized (must be of type Deployment): couldn't get version/kind; json parse error: unexpected end of JSON input ({\"apiVersion\":)","reason":"BadRequest","code":400}`},
		{"unknown field strict", "POST", deployments + "?fieldValidation=Strict", "application/json",
			`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"unk"},"spec":{"bogus":1,"selector":{"matchLabels":{"app":"x"}},"template":{"metadata":{"labels":{"app":"x"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}}}`, 400,
			`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Deployment in version \"v1\" cannot be handled as a Deployment: strict decoding error: unknown field \"spec.bogus\"","reason":"BadRequest","code":400}`},
		{"unsupported content type", "POST", deployments, "text/plain", "x", 415,
			`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf","reason":"UnsupportedMediaType","code":415}`},
		{"stale scale", "PUT", deployments + "/web/scale", "application/json",
			`{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"web","namespace":"default","resourceVersion":"1"},"spec":{"replicas":4}}`, 409,
			`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Operation cannot be fulfilled on deployments.apps \"web\": the object has been modified; please apply your changes to the latest version and try again","reason":"Conflict","details":{"name":"web","group":"apps","kind":"deployments"},"code":409}`},
		{"patch bad content type", "PATCH", deployments + "/web", "application/json", "{}", 415,
			`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"415: Unsupported Media Type","reason":"UnsupportedMediaType","details":{},"code":415}`},
		{"missing namespace list", "GET", "/api/v1/namespaces/nosuchns/pods", "", "", 200,
			`{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"RV"},"items":[]}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, ct, body := ts.do(t, c.method, c.path, c.ct, c.body)
			want := strings.ReplaceAll(c.want, `"RV"`, `"`+formatRV(ts.api.store.Revision())+`"`)
			if code != c.code || ct != "application/json" || body != want+"\n" {
				t.Errorf("got %d %s\n%s\nwant %d application/json\n%s", code, ct, body, c.code, want)
			}
		})
	}
}
