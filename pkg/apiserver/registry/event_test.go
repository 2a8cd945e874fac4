package registry

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func newEvent() *corev1.Event {
	return &corev1.Event{
		ObjectMeta: objMeta("web.187c0a1b2c3d4e5f", "default"),
		InvolvedObject: corev1.ObjectReference{
			Kind: "Deployment", Namespace: "default", Name: "web", UID: "u-9", APIVersion: "apps/v1", ResourceVersion: "12", FieldPath: "spec",
		},
		Reason: "ScalingReplicaSet", Message: "Scaled up", Type: corev1.EventTypeNormal,
		Source: corev1.EventSource{Component: "deployment-controller"},
	}
}

func TestEventValidation(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(e *corev1.Event)
		want   []string
	}{
		{"valid old-style", func(*corev1.Event) {}, nil},
		{"namespace mismatch", func(e *corev1.Event) { e.InvolvedObject.Namespace = "other" }, []string{
			`involvedObject.namespace: Invalid value: "other": does not match event.namespace`,
		}},
		{"cluster-scoped object in default", func(e *corev1.Event) { e.InvolvedObject.Kind, e.InvolvedObject.Namespace = "Node", "" }, nil},
		{"cluster-scoped object elsewhere", func(e *corev1.Event) { e.InvolvedObject.Namespace, e.Namespace = "", "team" }, []string{
			`involvedObject.namespace: Invalid value: "": does not match event.namespace`,
		}},
		{"new-style without reporting fields", func(e *corev1.Event) {
			e.EventTime = metav1.NowMicro()
			e.Reason = ""
		}, []string{
			"reportingComponent: Required value",
			// kube also runs the qualified-name check on the empty value.
			`reportingComponent: Invalid value: "": name part must be non-empty`,
			`reportingComponent: Invalid value: "": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
			"reportingInstance: Required value",
			"action: Required value",
			"reason: Required value",
		}},
		{"new-style too long", func(e *corev1.Event) {
			e.EventTime = metav1.NowMicro()
			e.ReportingController, e.ReportingInstance, e.Action = "kubelet", "node-1", "Pulling"
			e.Message = strings.Repeat("m", 1025)
		}, []string{`message: Invalid value: "": can have at most 1024 characters`}},
		{"no namespace", func(e *corev1.Event) { e.Namespace = "" }, []string{
			`involvedObject.namespace: Invalid value: "default": does not match event.namespace`,
			`namespace: Invalid value: "": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
			"metadata.namespace: Required value",
		}},
		{"name is a path segment, not a DNS name", func(e *corev1.Event) { e.Name = "Web.ABC" }, nil},
		{"name with a slash", func(e *corev1.Event) { e.Name = "a/b" }, []string{
			`metadata.name: Invalid value: "a/b": may not contain '/'`,
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEvent()
			tc.mutate(e)
			eventStrategy{}.PrepareForCreate(e)
			wantErrors(t, eventStrategy{}.Validate(e), tc.want...)
		})
	}
}

func TestEventUpdateAndFields(t *testing.T) {
	s := eventStrategy{}
	old := newEvent()
	old.ObjectMeta = storedMeta(old.Name, "default")
	upd := old.DeepCopy()
	upd.Count = 2
	upd.LastTimestamp = metav1.Unix(2000, 0)
	s.PrepareForUpdate(upd, old)
	wantErrors(t, s.ValidateUpdate(upd, old))
	if events().Generation != nil {
		t.Error("events have no generation")
	}

	want := map[string]string{
		"metadata.name": old.Name, "metadata.namespace": "default",
		"involvedObject.kind": "Deployment", "involvedObject.namespace": "default", "involvedObject.name": "web",
		"involvedObject.uid": "u-9", "involvedObject.apiVersion": "apps/v1", "involvedObject.resourceVersion": "12",
		"involvedObject.fieldPath": "spec", "reason": "ScalingReplicaSet", "reportingComponent": "",
		"source": "deployment-controller", "type": "Normal",
	}
	got := s.FieldSet(old)
	if len(got) != len(want) {
		t.Errorf("FieldSet = %v", got)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("FieldSet[%s] = %q, want %q", k, got[k], v)
		}
	}
	old.Source.Component, old.ReportingController = "", "kubelet"
	if got := s.FieldSet(old); got["source"] != "kubelet" || got["reportingComponent"] != "kubelet" {
		t.Errorf("source falls back to reportingComponent: %v", got)
	}
}
