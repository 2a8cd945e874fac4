package apiserver

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The admission kube-apiserver's default plugins apply on create,
// through the handlers: LimitRanger (section 20 of
// ../shared/reference/kinds-crd-ssa-1.37.md), DefaultStorageClass, and
// the bootstrap RBAC roles a new server has.

const (
	lrDemoPods   = "/api/v1/namespaces/lr-demo/pods"
	lrDemoLimits = "/api/v1/namespaces/lr-demo/limitranges"
	lrDemoClaims = "/api/v1/namespaces/lr-demo/persistentvolumeclaims"
)

// wantForbidden checks body is a 403 Forbidden Status with message.
func wantForbidden(t *testing.T, body, message string) *metav1.Status {
	t.Helper()
	var st metav1.Status
	if err := json.Unmarshal([]byte(body), &st); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	if st.Code != 403 || st.Reason != metav1.StatusReasonForbidden || st.Message != message {
		t.Errorf("status %d %s %q\nwant 403 Forbidden %q", st.Code, st.Reason, st.Message, message)
	}
	return &st
}

func startLimitRangeServer(t *testing.T) *testServer {
	t.Helper()
	ts := startTestServer(t)
	ts.mustDo(t, 201, "POST", "/api/v1/namespaces", "application/json", `{"metadata":{"name":"lr-demo"}}`)
	ts.mustDo(t, 201, "POST", lrDemoLimits, "application/json", `{"metadata":{"name":"defaults"},"spec":{"limits":[{"type":"Container",`+
		`"default":{"cpu":"500m","memory":"256Mi"},"defaultRequest":{"cpu":"100m"},"max":{"memory":"1Gi"}}]}}`)
	return ts
}

func TestLimitRangerThroughHTTP(t *testing.T) {
	ts := startLimitRangeServer(t)

	// kubectl run lr1: the reference's annotation and resources.
	body := ts.mustDo(t, 201, "POST", lrDemoPods, "application/json",
		`{"metadata":{"name":"lr1"},"spec":{"containers":[{"name":"lr1","image":"nginx"}]}}`)
	var pod corev1.Pod
	if err := json.Unmarshal([]byte(body), &pod); err != nil {
		t.Fatal(err)
	}
	annotations, _ := json.Marshal(pod.Annotations)
	resources, _ := json.Marshal(pod.Spec.Containers[0].Resources)
	got := string(annotations) + " " + string(resources)
	want := `{"kubernetes.io/limit-ranger":"LimitRanger plugin set: cpu, memory request for container lr1; cpu, memory limit for container lr1"} ` +
		`{"limits":{"cpu":"500m","memory":"256Mi"},"requests":{"cpu":"100m","memory":"256Mi"}}`
	if got != want {
		t.Errorf("lr1:\n got %s\nwant %s", got, want)
	}
	if pod.Status.QOSClass != corev1.PodQOSBurstable {
		t.Errorf("qosClass %s, want Burstable", pod.Status.QOSClass)
	}

	// kubectl run lr2 with a 2Gi memory limit: 403, kube's message.
	lr2 := `{"metadata":{"name":"lr2"},"spec":{"containers":[{"name":"lr2","image":"nginx","resources":{"limits":{"memory":"2Gi"}}}]}}`
	st := wantForbidden(t, ts.mustDo(t, 403, "POST", lrDemoPods, "application/json", lr2),
		`pods "lr2" is forbidden: maximum memory usage per Container is 1Gi, but limit is 2Gi`)
	if st.Details == nil || st.Details.Name != "lr2" || st.Details.Kind != "pods" {
		t.Errorf("details %+v", st.Details)
	}
	// A dry run is refused alike, and nothing was stored.
	ts.mustDo(t, 403, "POST", lrDemoPods+"?dryRun=All", "application/json", lr2)
	ts.mustDo(t, 404, "GET", lrDemoPods+"/lr2", "", "")

	// A malformed pod gets its 422 before the LimitRange's 403, as
	// validation runs before kube's validating admission.
	body = ts.mustDo(t, 422, "POST", lrDemoPods, "application/json",
		`{"metadata":{"name":"bad"},"spec":{"containers":[{"name":"bad","resources":{"limits":{"memory":"2Gi"}}}]}}`)
	if !strings.Contains(body, `spec.containers[0].image: Required value`) {
		t.Errorf("want the image error: %s", body)
	}

	// Another namespace has no LimitRange.
	body = ts.mustDo(t, 201, "POST", "/api/v1/namespaces/default/pods", "application/json",
		`{"metadata":{"name":"free"},"spec":{"containers":[{"name":"c","image":"nginx"}]}}`)
	if strings.Contains(body, "limit-ranger") || !strings.Contains(body, `"qosClass":"BestEffort"`) {
		t.Errorf("pod in default: %s", body)
	}
}

func TestClaimAdmissionThroughHTTP(t *testing.T) {
	ts := startLimitRangeServer(t)
	ts.mustDo(t, 201, "POST", lrDemoLimits, "application/json",
		`{"metadata":{"name":"storage"},"spec":{"limits":[{"type":"PersistentVolumeClaim","max":{"storage":"2Gi"}}]}}`)
	claim := func(name, size, class string) string {
		c := `{"metadata":{"name":"` + name + `"},"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"` + size + `"}}`
		if class != "" {
			c += `,"storageClassName":"` + class + `"`
		}
		return c + `}}`
	}
	classOf := func(body string) string {
		t.Helper()
		var pvc corev1.PersistentVolumeClaim
		if err := json.Unmarshal([]byte(body), &pvc); err != nil {
			t.Fatal(err)
		}
		if pvc.Spec.StorageClassName == nil {
			return "<nil>"
		}
		return *pvc.Spec.StorageClassName
	}

	// No StorageClass is seeded, so a claim gets none.
	if got := classOf(ts.mustDo(t, 201, "POST", lrDemoClaims, "application/json", claim("first", "1Gi", ""))); got != "<nil>" {
		t.Errorf("no default class: %s", got)
	}
	sc := "/apis/storage.k8s.io/v1/storageclasses"
	ts.mustDo(t, 201, "POST", sc, "application/json",
		`{"metadata":{"name":"fast","annotations":{"storageclass.kubernetes.io/is-default-class":"true"}},"provisioner":"example.com/ssd"}`)
	if got := classOf(ts.mustDo(t, 201, "POST", lrDemoClaims, "application/json", claim("second", "1Gi", ""))); got != "fast" {
		t.Errorf("default class: %s, want fast", got)
	}
	if got := classOf(ts.mustDo(t, 201, "POST", lrDemoClaims, "application/json", claim("third", "1Gi", "slow"))); got != "slow" {
		t.Errorf("named class: %s, want slow", got)
	}
	wantForbidden(t, ts.mustDo(t, 403, "POST", lrDemoClaims, "application/json", claim("big", "5Gi", "")),
		`persistentvolumeclaims "big" is forbidden: maximum storage usage per PersistentVolumeClaim is 2Gi, but request is 5Gi`)
}

func TestBootstrapRBACThroughHTTP(t *testing.T) {
	ts := startTestServer(t)
	c := ts.client(t)
	ctx := context.Background()
	roles, err := c.RbacV1().ClusterRoles().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range roles.Items {
		names = append(names, r.Name)
	}
	want := "admin cluster-admin edit system:aggregate-to-admin system:aggregate-to-edit system:aggregate-to-view " +
		"system:basic-user system:discovery system:public-info-viewer view"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("clusterroles %s\nwant %s", got, want)
	}

	view, err := c.RbacV1().ClusterRoles().Get(ctx, "view", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if view.Labels["kubernetes.io/bootstrapping"] != "rbac-defaults" || view.Labels["rbac.authorization.k8s.io/aggregate-to-edit"] != "true" ||
		view.Annotations["rbac.authorization.kubernetes.io/autoupdate"] != "true" || view.AggregationRule == nil || len(view.Rules) == 0 {
		t.Errorf("view: %+v", view)
	}
	binding, err := c.RbacV1().ClusterRoleBindings().Get(ctx, "cluster-admin", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	wantSubjects := []rbacv1.Subject{{Kind: "Group", APIGroup: rbacv1.GroupName, Name: "system:masters"}}
	if binding.RoleRef.Name != "cluster-admin" || len(binding.Subjects) != 1 || binding.Subjects[0] != wantSubjects[0] {
		t.Errorf("cluster-admin binding: %+v", binding)
	}

	// A restart seeds again only what is missing: a deleted role comes
	// back, an edited one is left as it is.
	ts.mustDo(t, 200, "DELETE", rbacV1+"/clusterroles/edit", "", "")
	ts.mustDo(t, 200, "PATCH", rbacV1+"/clusterroles/view", mergePatch, `{"metadata":{"labels":{"mine":"yes"}}}`)
	if err := ts.api.Bootstrap(ctx); err != nil {
		t.Fatal(err)
	}
	ts.mustDo(t, 200, "GET", rbacV1+"/clusterroles/edit", "", "")
	if body := ts.mustDo(t, 200, "GET", rbacV1+"/clusterroles/view", "", ""); !strings.Contains(body, `"mine":"yes"`) {
		t.Errorf("view overwritten: %s", body)
	}

	header, row := tableOf(t, ts, rbacV1+"/clusterrolebindings/system:public-info-viewer")
	if strings.Join(header, " ") != "Name/string/name Role/string/ Age/string/ Users/string/ Groups/string/ ServiceAccounts/string/" ||
		!strings.HasPrefix(row, `["system:public-info-viewer","ClusterRole/system:public-info-viewer","`) ||
		!strings.Contains(row, `"system:authenticated, system:unauthenticated"`) {
		t.Errorf("table %v %s", header, row)
	}
}
