package cli

import (
	"strings"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestFieldLabel(t *testing.T) {
	for in, want := range map[string]string{
		"holderIdentity":       "Holder Identity",
		"leaseDurationSeconds": "Lease Duration Seconds",
		"uid":                  "UID",
		"apiVersion":           "API Version",
		"podIPs":               "Pod I Ps",
		"clusterIP":            "Cluster IP",
		"URLPath":              "URLPath",
		"kind":                 "Kind",
		"example.com/key":      "example.com/key",
		"x-y":                  "X - Y",
	} {
		if got := fieldLabel(in); got != want {
			t.Errorf("fieldLabel(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestEndpointsForPort(t *testing.T) {
	ready, notReady := true, false
	name, port := "http", int32(8080)
	ep := func(addr string, r *bool) discoveryv1.Endpoint {
		return discoveryv1.Endpoint{Addresses: []string{addr}, Conditions: discoveryv1.EndpointConditions{Ready: r}}
	}
	slice := discoveryv1.EndpointSlice{
		Ports:     []discoveryv1.EndpointPort{{Name: &name, Port: &port}},
		Endpoints: []discoveryv1.Endpoint{ep("10.0.0.1", &ready), ep("10.0.0.2", nil), ep("10.0.0.3", &notReady), ep("10.0.0.4", &ready), ep("10.0.0.5", &ready)},
	}
	if got := endpointsForPort(nil, "http"); got != "<none>" {
		t.Errorf("no slices: %q", got)
	}
	if got := endpointsForPort([]discoveryv1.EndpointSlice{slice}, "http"); got != "10.0.0.1:8080,10.0.0.2:8080,10.0.0.4:8080 + 1 more..." {
		t.Errorf("got %q", got)
	}
	if got := endpointsForPort([]discoveryv1.EndpointSlice{slice}, "other"); got != "" {
		t.Errorf("other port: %q", got)
	}
}

func TestDescribeSecretHidesValues(t *testing.T) {
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: "d"}, Type: corev1.SecretTypeOpaque,
		Data: map[string][]byte{"password": []byte("hunter2"), "a": nil}}
	got := describeSecret(s)
	want := "Name:         s\nNamespace:    d\nLabels:       <none>\nAnnotations:  <none>\n\nType:  Opaque\n\nData\n====\na:         0 bytes\npassword:  7 bytes\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if strings.Contains(got, "hunter2") {
		t.Error("value shown")
	}
}

func TestPrintAccess(t *testing.T) {
	var b strings.Builder
	if printAccess(&b, authorizationv1.SubjectAccessReviewStatus{Allowed: true}) != true || b.String() != "yes\n" {
		t.Errorf("allowed: %q", b.String())
	}
	b.Reset()
	st := authorizationv1.SubjectAccessReviewStatus{Reason: "no RBAC policy matched", EvaluationError: "boom"}
	if printAccess(&b, st) != false || b.String() != "no - no RBAC policy matched - boom\n" {
		t.Errorf("denied: %q", b.String())
	}
}
