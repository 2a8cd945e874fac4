package server

import (
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const deploymentsPath = "/apis/apps/v1/namespaces/default/deployments"

// TestClientErrors checks the errors client-go sees: conflict, not found,
// already exists, invalid, missing namespace.
func TestClientErrors(t *testing.T) {
	s := start(t)
	c := s.Client()
	ctx := ctxFor(t)
	d, err := c.AppsV1().Deployments("default").Create(ctx, deployment("web", 1), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.AppsV1().Deployments("default").Create(ctx, deployment("web", 1), metav1.CreateOptions{}); !apierrors.IsAlreadyExists(err) {
		t.Errorf("second create: %v, want AlreadyExists", err)
	}
	d.Spec.Replicas = ptr(int32(2))
	if _, err := c.AppsV1().Deployments("default").Update(ctx, d, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	d.Spec.Replicas = ptr(int32(3)) // d still holds the old resourceVersion
	_, err = c.AppsV1().Deployments("default").Update(ctx, d, metav1.UpdateOptions{})
	if !apierrors.IsConflict(err) || !strings.Contains(err.Error(), `Operation cannot be fulfilled on deployments.apps "web": the object has been modified`) {
		t.Errorf("stale update: %v, want Conflict", err)
	}
	_, err = c.AppsV1().Deployments("default").Get(ctx, "nope", metav1.GetOptions{})
	if !apierrors.IsNotFound(err) || err.Error() != `deployments.apps "nope" not found` {
		t.Errorf("get missing: %v", err)
	}
	_, err = c.CoreV1().Pods("nosuchns").Create(ctx, pod("p", nil), metav1.CreateOptions{})
	if !apierrors.IsNotFound(err) || err.Error() != `namespaces "nosuchns" not found` {
		t.Errorf("create in a missing namespace: %v", err)
	}
	pods, err := c.CoreV1().Pods("nosuchns").List(ctx, metav1.ListOptions{})
	if err != nil || len(pods.Items) != 0 {
		t.Errorf("list in a missing namespace: %v items, %v; want 0 and no error", len(pods.Items), err)
	}
	bad := deployment("bad", -1)
	_, err = c.AppsV1().Deployments("default").Create(ctx, bad, metav1.CreateOptions{})
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "spec.replicas: Invalid value: -1: must be greater than or equal to 0") {
		t.Errorf("invalid deployment: %v, want 422 Invalid naming spec.replicas", err)
	}
}

// TestBadInputs checks each bad request body's Status, byte for byte
// where wire-samples.md shows kube-apiserver's.
func TestBadInputs(t *testing.T) {
	s := start(t)
	web := `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"nginx","image":"nginx"}]}}}}`
	unknown := strings.Replace(web, `"spec":{"selector"`, `"spec":{"replicass":3,"selector"`, 1)
	cases := []struct {
		name, method, path, contentType, body string
		code                                  int
		want                                  string // whole body, or a part of it when wantPart
		wantPart                              bool
	}{
		{"malformed JSON", "POST", deploymentsPath, "application/json", `{"apiVersion":`, 400,
			`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the object provided is unrecognized (must be of type Deployment): couldn't get version/kind; json parse error: unexpected end of JSON input ({\"apiVersion\":)","reason":"BadRequest","code":400}`, false},
		{"wrong kind", "POST", deploymentsPath, "application/json", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"}}`, 400,
			`"reason":"BadRequest"`, true},
		{"unknown field, Strict", "POST", deploymentsPath + "?fieldValidation=Strict", "application/json", unknown, 400,
			`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Deployment in version \"v1\" cannot be handled as a Deployment: strict decoding error: unknown field \"spec.replicass\"","reason":"BadRequest","code":400}`, false},
		{"unsupported content type", "POST", deploymentsPath, "text/plain", "x", 415,
			`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf","reason":"UnsupportedMediaType","code":415}`, false},
		{"too large", "POST", deploymentsPath, "application/json", `{"x":"` + strings.Repeat("a", 3<<20) + `"}`, 413,
			`"reason":"RequestEntityTooLarge"`, true},
		{"missing namespace", "POST", "/apis/apps/v1/namespaces/nosuchns/deployments", "application/json", web, 404,
			`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"namespaces \"nosuchns\" not found","reason":"NotFound","details":{"name":"nosuchns","kind":"namespaces"},"code":404}`, false},
		{"unknown field label", "GET", deploymentsPath + "?fieldSelector=spec.x%3Dy", "", "", 400,
			`"message":"field label not supported: spec.x"`, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, h, body := raw(t, s, c.method, c.path, c.contentType, c.body)
			ok := code == c.code && h.Get("Content-Type") == "application/json"
			if c.wantPart {
				ok = ok && strings.Contains(body, c.want)
			} else {
				ok = ok && body == c.want+"\n"
			}
			if !ok {
				t.Errorf("got %d %s\n%s\nwant %d application/json with\n%s", code, h.Get("Content-Type"), body, c.code, c.want)
			}
		})
	}

	// Warn (the default without fieldValidation) stores the object and
	// answers the unknown field as a Warning header.
	code, h, body := raw(t, s, "POST", deploymentsPath, "application/json", unknown)
	if code != 201 || h.Get("Warning") != `299 - "unknown field \"spec.replicass\""` {
		t.Errorf("Warn: %d Warning=%q\n%s", code, h.Get("Warning"), body)
	}
}
