package apiserver

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// staticTokens is an Authenticator over a fixed token table, as
// cmd/miniapi's --token-auth-file is.
type staticTokens map[string]authenticationv1.UserInfo

func (s staticTokens) AuthenticateToken(_ context.Context, tok string) (authenticationv1.UserInfo, bool, error) {
	u, ok := s[tok]
	return u, ok, nil
}

// adminToken is the reference's admin: user admin, uid admin-uid, group
// system:masters.
const adminToken = "peer-admin-token-0123456789"

func startTokenServer(t *testing.T) *testServer {
	t.Helper()
	return startTestServerWith(t, Config{Authenticator: staticTokens{
		adminToken: {Username: "admin", UID: "admin-uid", Groups: []string{"system:masters"}},
	}})
}

func tokenClient(t *testing.T, ts *testServer, token string, as *rest.ImpersonationConfig) kubernetes.Interface {
	t.Helper()
	cfg := &rest.Config{Host: ts.url, BearerToken: token}
	if as != nil {
		cfg.Impersonate = *as
	}
	c, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

const (
	ssarPath = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"
	sarPath  = "/apis/authorization.k8s.io/v1/subjectaccessreviews"
	ssrrPath = "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews"
	ssrPath  = "/apis/authentication.k8s.io/v1/selfsubjectreviews"
	trPath   = "/apis/authentication.k8s.io/v1/tokenreviews"
)

// Access reviews are allowed, with miniapi's reason; the spec comes back
// as sent.
func TestAccessReviewsAllowEverything(t *testing.T) {
	ts := startTestServer(t)
	code, _, body := ts.do(t, "POST", ssarPath, "application/json",
		`{"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectAccessReview","spec":{"resourceAttributes":{"namespace":"default","verb":"create","resource":"pods"}}}`)
	want := `{"kind":"SelfSubjectAccessReview","apiVersion":"authorization.k8s.io/v1","metadata":{},` +
		`"spec":{"resourceAttributes":{"namespace":"default","verb":"create","resource":"pods"}},` +
		`"status":{"allowed":true,"reason":"miniapi enforces no authorization: every user may do everything"}}` + "\n"
	if code != http.StatusCreated || body != want {
		t.Errorf("SelfSubjectAccessReview: %d\n got %s\nwant %s", code, body, want)
	}
	code, _, body = ts.do(t, "POST", sarPath, "application/json",
		`{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","spec":{"user":"jane","resourceAttributes":{"namespace":"default","verb":"delete","resource":"pods"}}}`)
	if code != http.StatusCreated || !strings.Contains(body, `"user":"jane"},"status":{"allowed":true,`) {
		t.Errorf("SubjectAccessReview: %d %s", code, body)
	}
	// kube's validation.
	for path, c := range map[string]struct{ body, message string }{
		sarPath: {`{"spec":{"resourceAttributes":{"verb":"get"}}}`,
			`SubjectAccessReview.authorization.k8s.io \"\" is invalid: spec.user: Invalid value: \"\": at least one of user or group must be specified`},
		ssarPath: {`{"spec":{}}`,
			`SelfSubjectAccessReview.authorization.k8s.io \"\" is invalid: spec.resourceAttributes: Invalid value: null: exactly one of nonResourceAttributes or resourceAttributes must be specified`},
	} {
		code, _, body := ts.do(t, "POST", path, "application/json", c.body)
		if code != http.StatusUnprocessableEntity || !strings.Contains(body, `"message":"`+c.message+`"`) {
			t.Errorf("%s: %d %s\nwant %s", path, code, body, c.message)
		}
	}
	// client-go's typed client, as kubectl auth can-i and k9s use it.
	r, err := ts.client(t).AuthorizationV1().SelfSubjectAccessReviews().Create(context.Background(), &authorizationv1.SelfSubjectAccessReview{
		Spec: authorizationv1.SelfSubjectAccessReviewSpec{NonResourceAttributes: &authorizationv1.NonResourceAttributes{Path: "/healthz", Verb: "get"}},
	}, metav1.CreateOptions{})
	if err != nil || !r.Status.Allowed {
		t.Errorf("typed SelfSubjectAccessReview: %v %+v", err, r)
	}
}

// A rules review lists kube's cluster-admin answer (reference section 22).
func TestSelfSubjectRulesReview(t *testing.T) {
	ts := startTestServer(t)
	code, _, body := ts.do(t, "POST", ssrrPath, "application/json",
		`{"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectRulesReview","spec":{"namespace":"default"}}`)
	want := `{"kind":"SelfSubjectRulesReview","apiVersion":"authorization.k8s.io/v1","metadata":{},"spec":{},"status":{` +
		`"resourceRules":[{"verbs":["create"],"apiGroups":["authorization.k8s.io"],"resources":["selfsubjectaccessreviews","selfsubjectrulesreviews"]},` +
		`{"verbs":["create"],"apiGroups":["authentication.k8s.io"],"resources":["selfsubjectreviews"]},` +
		`{"verbs":["*"],"apiGroups":["*"],"resources":["*"]}],` +
		`"nonResourceRules":[{"verbs":["get"],"nonResourceURLs":["/api","/api/*","/apis","/apis/*","/healthz","/livez","/openapi","/openapi/*","/readyz","/version","/version/"]},` +
		`{"verbs":["get"],"nonResourceURLs":["/healthz","/livez","/readyz","/version","/version/"]},` +
		`{"verbs":["*"],"nonResourceURLs":["*"]}],"incomplete":false}}` + "\n"
	if code != http.StatusCreated || body != want {
		t.Errorf("SelfSubjectRulesReview: %d\n got %s\nwant %s", code, body, want)
	}
	if code, _, body := ts.do(t, "POST", ssrrPath, "application/json", `{"spec":{}}`); code != http.StatusBadRequest || !strings.Contains(body, `"message":"no namespace on request"`) {
		t.Errorf("no namespace: %d %s", code, body)
	}
}

// SelfSubjectReview echoes the user: the token's, an impersonated one, or
// on a server without tokens the documented admin.
func TestSelfSubjectReview(t *testing.T) {
	ctx := context.Background()
	anon := startTestServer(t)
	r, err := anon.client(t).AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if u := r.Status.UserInfo; u.Username != "system:unsecured" || strings.Join(u.Groups, " ") != "system:masters system:authenticated" || r.CreationTimestamp.IsZero() {
		t.Errorf("anonymous loopback user %+v", r)
	}

	ts := startTokenServer(t)
	code, _, body := ts.do(t, "POST", ssrPath, "application/json", `{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}`, "Authorization", "Bearer "+adminToken)
	var got authenticationv1.SelfSubjectReview
	_ = json.Unmarshal([]byte(body), &got)
	want := `"status":{"userInfo":{"username":"admin","uid":"admin-uid","groups":["system:masters","system:authenticated"]}}}`
	if code != http.StatusCreated || !strings.HasPrefix(body, `{"kind":"SelfSubjectReview","apiVersion":"authentication.k8s.io/v1","metadata":{"creationTimestamp":"`) ||
		!strings.HasSuffix(body, want+"\n") {
		t.Errorf("token user: %d %s", code, body)
	}
	r, err = tokenClient(t, ts, adminToken, &rest.ImpersonationConfig{UserName: "jane", Groups: []string{"devs"}}).
		AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil || r.Status.UserInfo.Username != "jane" || r.Status.UserInfo.UID != "" || strings.Join(r.Status.UserInfo.Groups, " ") != "devs system:authenticated" {
		t.Errorf("impersonated: %v %+v", err, r)
	}
	if code, _, _ := ts.do(t, "POST", ssrPath, "application/json", `{}`, "Authorization", "Bearer wrong"); code != http.StatusUnauthorized {
		t.Errorf("bad token: %d", code)
	}
}

// TokenReview checks tokens against the server's Authenticator, and
// answers as kube-apiserver does (reference section 22).
func TestTokenReview(t *testing.T) {
	ts := startTokenServer(t)
	auth := []string{"Authorization", "Bearer " + adminToken}
	cases := []struct{ token, status string }{
		{adminToken, `"status":{"authenticated":true,"user":{"username":"admin","uid":"admin-uid","groups":["system:masters","system:authenticated"]},"audiences":["https://kubernetes.default.svc"]}}`},
		{"nope", `"status":{"user":{},"error":"invalid bearer token"}}`},
	}
	for _, c := range cases {
		code, _, body := ts.do(t, "POST", trPath, "application/json",
			`{"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview","spec":{"token":"`+c.token+`"}}`, auth...)
		want := `{"kind":"TokenReview","apiVersion":"authentication.k8s.io/v1","metadata":{},"spec":{"token":"` + c.token + `"},` + c.status + "\n"
		if code != http.StatusCreated || body != want {
			t.Errorf("token %q: %d\n got %s\nwant %s", c.token, code, body, want)
		}
	}
	code, _, body := ts.do(t, "POST", trPath, "application/json", `{"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview","spec":{}}`, auth...)
	if code != http.StatusBadRequest || !strings.Contains(body, `"message":"token is required for TokenReview in authentication","reason":"BadRequest","code":400`) {
		t.Errorf("empty token: %d %s", code, body)
	}
	code, _, body = ts.do(t, "POST", trPath, "application/json", `{"spec":{"token":"`+adminToken+`","audiences":["other"]}}`, auth...)
	if code != http.StatusCreated || !strings.Contains(body, `"status":{"user":{},"error":"invalid bearer token"}`) {
		t.Errorf("other audience: %d %s", code, body)
	}
}

// The reviews serve create only: other verbs get 405, and discovery says
// so.
func TestReviewsAreCreateOnly(t *testing.T) {
	ts := startTestServer(t)
	for _, path := range []string{ssarPath, sarPath, ssrrPath, ssrPath, trPath} {
		for _, req := range [][2]string{{"GET", path}, {"GET", path + "/x"}, {"DELETE", path}, {"PUT", path + "/x"}, {"GET", path + "?watch=1"}} {
			code, _, body := ts.do(t, req[0], req[1], "application/json", `{}`)
			if code != http.StatusMethodNotAllowed || !strings.Contains(body, `"reason":"MethodNotAllowed"`) {
				t.Errorf("%s %s: %d %s", req[0], req[1], code, body)
			}
		}
	}
	code, _, body := ts.do(t, "GET", "/apis/authentication.k8s.io/v1", "", "")
	want := `{"name":"selfsubjectreviews","singularName":"selfsubjectreview","namespaced":false,"kind":"SelfSubjectReview","verbs":["create"]}`
	if code != 200 || !strings.Contains(body, want) {
		t.Errorf("discovery: %d %s", code, body)
	}
}

// A LocalSubjectAccessReview is about the namespace of its path.
func TestLocalSubjectAccessReview(t *testing.T) {
	ts := startTestServer(t)
	const path = "/apis/authorization.k8s.io/v1/namespaces/default/localsubjectaccessreviews"
	code, _, body := ts.do(t, "POST", path, "application/json",
		`{"apiVersion":"authorization.k8s.io/v1","kind":"LocalSubjectAccessReview","spec":{"user":"jane","resourceAttributes":{"namespace":"default","verb":"list","resource":"pods"}}}`)
	if code != http.StatusCreated || !strings.Contains(body, `"metadata":{"namespace":"default"}`) || !strings.Contains(body, `"status":{"allowed":true,`) {
		t.Errorf("allowed: %d %s", code, body)
	}
	code, _, body = ts.do(t, "POST", path, "application/json",
		`{"spec":{"user":"jane","resourceAttributes":{"namespace":"other","verb":"list","resource":"pods"}}}`)
	if want := `spec.resourceAttributes.namespace: Invalid value: \"other\": must match metadata.namespace`; code != http.StatusUnprocessableEntity || !strings.Contains(body, want) {
		t.Errorf("other namespace: %d %s", code, body)
	}
}
