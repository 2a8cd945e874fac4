package apiserver

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// What kube-apiserver's admission plugins add to a new pod (its service
// account, priority, preemption policy, default tolerations, LimitRange
// resources) is added after the field manager has recorded the creator's
// fields, so it is in the stored pod and in nobody's managedFields entry;
// the API defaults are the creator's. The web-0 pod and its
// kubectl-client-side-apply entry are section "PartialObjectMetadata" of
// ../shared/reference/kinds-crd-ssa-1.37.md.

const referenceWeb0Fields = `{"f:metadata":{"f:annotations":{".":{},"f:kubectl.kubernetes.io/last-applied-configuration":{}},` +
	`"f:labels":{".":{},"f:app":{}}},"f:spec":{"f:containers":{"k:{\"name\":\"nginx\"}":{".":{},"f:image":{},"f:imagePullPolicy":{},` +
	`"f:name":{},"f:ports":{".":{},"k:{\"containerPort\":8080,\"protocol\":\"TCP\"}":{".":{},"f:containerPort":{},"f:protocol":{}}},` +
	`"f:resources":{},"f:terminationMessagePath":{},"f:terminationMessagePolicy":{}}},"f:dnsPolicy":{},"f:enableServiceLinks":{},` +
	`"f:nodeName":{},"f:restartPolicy":{},"f:schedulerName":{},"f:securityContext":{},"f:terminationGracePeriodSeconds":{}}}`

// createdPodFields creates a pod and returns it as stored and the
// fieldsV1 of its one managedFields entry, whose manager must be manager.
func createdPodFields(t *testing.T, ts *testServer, path, manager, body string) (*corev1.Pod, string) {
	t.Helper()
	created := ts.mustDo(t, 201, "POST", path+"?fieldManager="+manager, "application/json", body)
	var pod corev1.Pod
	if err := json.Unmarshal([]byte(created), &pod); err != nil {
		t.Fatal(err)
	}
	stored := ts.mustDo(t, 200, "GET", path+"/"+pod.Name, "", "")
	if err := json.Unmarshal([]byte(stored), &pod); err != nil {
		t.Fatal(err)
	}
	mf := pod.ManagedFields
	if len(mf) != 1 || mf[0].Manager != manager || mf[0].FieldsV1 == nil {
		t.Fatalf("managedFields %+v, want one entry of %s", mf, manager)
	}
	var fields bytes.Buffer
	if err := json.Compact(&fields, mf[0].FieldsV1.GetRawBytes()); err != nil {
		t.Fatal(err)
	}
	return &pod, fields.String()
}

// wantAdmitted checks a stored pod has what admission gave it.
func wantAdmitted(t *testing.T, pod *corev1.Pod, account string) {
	t.Helper()
	s := pod.Spec
	if s.ServiceAccountName != account || s.DeprecatedServiceAccount != account {
		t.Errorf("%s: serviceAccountName %q serviceAccount %q, want %q", pod.Name, s.ServiceAccountName, s.DeprecatedServiceAccount, account)
	}
	if s.Priority == nil || *s.Priority != 0 || s.PreemptionPolicy == nil || *s.PreemptionPolicy != corev1.PreemptLowerPriority {
		t.Errorf("%s: priority %v preemptionPolicy %v", pod.Name, s.Priority, s.PreemptionPolicy)
	}
	keys := map[string]bool{}
	for _, tol := range s.Tolerations {
		keys[tol.Key] = true
	}
	if !keys[corev1.TaintNodeNotReady] || !keys[corev1.TaintNodeUnreachable] {
		t.Errorf("%s: tolerations %+v", pod.Name, s.Tolerations)
	}
}

func TestPodAdmissionIsNotTheCreatorsFields(t *testing.T) {
	ts := startTestServer(t)
	const pods = "/api/v1/namespaces/default/pods"

	// kubectl apply of the reference's web-0: its entry byte for byte.
	lastApplied := `{"apiVersion":"v1","kind":"Pod","metadata":{"annotations":{},"labels":{"app":"web"},"name":"web-0","namespace":"default"},` +
		`"spec":{"containers":[{"image":"nginx","name":"nginx","ports":[{"containerPort":8080}]}],"nodeName":"node-1"}}` + "\n"
	annotation, _ := json.Marshal(lastApplied)
	web0 := `{"metadata":{"name":"web-0","labels":{"app":"web"},"annotations":{"kubectl.kubernetes.io/last-applied-configuration":` +
		string(annotation) + `}},"spec":{"containers":[{"image":"nginx","name":"nginx","ports":[{"containerPort":8080}]}],"nodeName":"node-1"}}`
	pod, fields := createdPodFields(t, ts, pods, "kubectl-client-side-apply", web0)
	if fields != referenceWeb0Fields {
		t.Errorf("web-0 fields:\n got %s\nwant %s", fields, referenceWeb0Fields)
	}
	wantAdmitted(t, pod, "default")

	// kubectl create of a plain pod: none of admission's fields.
	pod, fields = createdPodFields(t, ts, pods, "kubectl-create",
		`{"metadata":{"name":"plain"},"spec":{"containers":[{"name":"c","image":"nginx"}]}}`)
	for _, f := range []string{`"f:serviceAccountName"`, `"f:serviceAccount"`, `"f:priority"`, `"f:preemptionPolicy"`, `"f:tolerations"`} {
		if strings.Contains(fields, f) {
			t.Errorf("plain: creator's fields have %s: %s", f, fields)
		}
	}
	wantAdmitted(t, pod, "default")

	// What the request set is the creator's, and admission keeps it.
	pod, fields = createdPodFields(t, ts, pods, "kubectl-create",
		`{"metadata":{"name":"own"},"spec":{"containers":[{"name":"c","image":"nginx"}],"serviceAccountName":"builder","priority":0,`+
			`"tolerations":[{"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute","tolerationSeconds":5}]}}`)
	for _, f := range []string{`"f:serviceAccountName"`, `"f:priority"`, `"f:tolerations"`} {
		if !strings.Contains(fields, f) {
			t.Errorf("own: creator's fields lack %s: %s", f, fields)
		}
	}
	if strings.Contains(fields, `"f:preemptionPolicy"`) || strings.Contains(fields, "unreachable") {
		t.Errorf("own: creator's fields have admission's: %s", fields)
	}
	wantAdmitted(t, pod, "builder")
	if tol := pod.Spec.Tolerations; len(tol) != 2 || *tol[0].TolerationSeconds != 5 || tol[1].Key != corev1.TaintNodeUnreachable {
		t.Errorf("own: tolerations %+v", tol)
	}
}

func TestLimitRangerIsNotTheCreatorsFields(t *testing.T) {
	ts := startLimitRangeServer(t)
	pod, fields := createdPodFields(t, ts, lrDemoPods, "kubectl-run",
		`{"metadata":{"name":"lr1"},"spec":{"containers":[{"name":"lr1","image":"nginx"}]}}`)
	if strings.Contains(fields, `"f:limits"`) || strings.Contains(fields, `"f:requests"`) || strings.Contains(fields, "limit-ranger") {
		t.Errorf("creator's fields have LimitRanger's: %s", fields)
	}
	if pod.Annotations["kubernetes.io/limit-ranger"] == "" || pod.Spec.Containers[0].Resources.Limits.Cpu().String() != "500m" {
		t.Errorf("LimitRanger's defaults not stored: %+v %+v", pod.Annotations, pod.Spec.Containers[0].Resources)
	}
}
