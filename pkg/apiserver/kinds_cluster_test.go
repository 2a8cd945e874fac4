package apiserver

import (
	"encoding/json"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The RBAC, networking, scheduling and storage kinds through the
// handlers, compared with sections 12-14, 18 and 21 of
// ../shared/reference/kinds-crd-ssa-1.37.md.

const (
	rbacV1        = "/apis/rbac.authorization.k8s.io/v1"
	networkingV1  = "/apis/networking.k8s.io/v1"
	priorityClass = "/apis/scheduling.k8s.io/v1/priorityclasses"
)

// TestClusterKindsDiscovery compares each entry with the reference's
// APIResourceList line, storage version hash included.
func TestClusterKindsDiscovery(t *testing.T) {
	ts := startTestServer(t)
	verbs := `"verbs":["create","delete","deletecollection","get","list","patch","update","watch"]`
	for gv, want := range map[string][]string{
		rbacV1: {
			`{"name":"clusterrolebindings","singularName":"clusterrolebinding","namespaced":false,"kind":"ClusterRoleBinding",` + verbs + `,"storageVersionHash":"48tpQ8gZHFc="}`,
			`{"name":"clusterroles","singularName":"clusterrole","namespaced":false,"kind":"ClusterRole",` + verbs + `,"storageVersionHash":"bYE5ZWDrJ44="}`,
			`{"name":"rolebindings","singularName":"rolebinding","namespaced":true,"kind":"RoleBinding",` + verbs + `,"storageVersionHash":"eGsCzGH6b1g="}`,
			`{"name":"roles","singularName":"role","namespaced":true,"kind":"Role",` + verbs + `,"storageVersionHash":"7FuwZcIIItM="}`,
		},
		networkingV1: {
			`{"name":"ingressclasses","singularName":"ingressclass","namespaced":false,"kind":"IngressClass",` + verbs + `,"storageVersionHash":"l/iqIbDgFyQ="}`,
			`{"name":"ingresses","singularName":"ingress","namespaced":true,"kind":"Ingress",` + verbs + `,"shortNames":["ing"],"storageVersionHash":"39NQlfNR+bo="}`,
			`{"name":"ingresses/status","singularName":"","namespaced":true,"kind":"Ingress","verbs":["get","patch","update"]}`,
			`{"name":"networkpolicies","singularName":"networkpolicy","namespaced":true,"kind":"NetworkPolicy",` + verbs + `,"shortNames":["netpol"],"storageVersionHash":"YpfwF18m1G8="}`,
		},
		"/apis/scheduling.k8s.io/v1": {
			`{"name":"priorityclasses","singularName":"priorityclass","namespaced":false,"kind":"PriorityClass",` + verbs + `,"shortNames":["pc"],"storageVersionHash":"1QwjyaZjj3Y="}`,
		},
	} {
		var list metav1.APIResourceList
		if err := json.Unmarshal([]byte(ts.mustDo(t, 200, "GET", gv, "", "")), &list); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range list.APIResources {
			b, _ := json.Marshal(r)
			got = append(got, string(b))
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s:\n got %s\nwant %s", gv, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

// TestClusterKindsTables: columns and first rows as the reference's
// server-side Tables (AGE cells cut off).
func TestClusterKindsTables(t *testing.T) {
	ts := startTestServer(t)
	for _, c := range []struct{ path, body string }{
		{rbacV1 + "/namespaces/default/roles", `{"metadata":{"name":"pod-reader"},"rules":[{"apiGroups":[""],"resources":["pods"],"verbs":["get","list","watch"]}]}`},
		{rbacV1 + "/namespaces/default/rolebindings", `{"metadata":{"name":"read-pods"},"subjects":[{"kind":"User","name":"jane"},{"kind":"ServiceAccount","name":"builder"}],"roleRef":{"kind":"Role","name":"pod-reader","apiGroup":"rbac.authorization.k8s.io"}}`},
		{rbacV1 + "/clusterrolebindings", `{"metadata":{"name":"read-secrets-global"},"subjects":[{"kind":"Group","name":"managers","apiGroup":"rbac.authorization.k8s.io"}],"roleRef":{"kind":"ClusterRole","name":"secret-reader","apiGroup":"rbac.authorization.k8s.io"}}`},
		{networkingV1 + "/namespaces/default/ingresses", `{"metadata":{"name":"web"},"spec":{"rules":[{"host":"web.example.com","http":{"paths":[{"path":"/","pathType":"Prefix","backend":{"service":{"name":"web","port":{"number":80}}}}]}}],"tls":[{"hosts":["web.example.com"],"secretName":"web-tls"}]}}`},
		{networkingV1 + "/namespaces/default/networkpolicies", `{"metadata":{"name":"allow-web"},"spec":{"podSelector":{"matchLabels":{"app":"web"}},"ingress":[{"from":[{"podSelector":{"matchLabels":{"role":"frontend"}}}],"ports":[{"port":8080}]}]}}`},
		{priorityClass, `{"metadata":{"name":"high"},"value":100000,"description":"important pods"}`},
	} {
		ts.mustDo(t, 201, "POST", c.path, "application/json", c.body)
	}
	for _, tc := range []struct{ path, header, cells string }{
		{rbacV1 + "/namespaces/default/roles?limit=500", "Name/string/name Created At/date/", `["pod-reader","20`},
		{rbacV1 + "/namespaces/default/rolebindings?limit=500", "Name/string/name Role/string/ Age/string/ Users/string/ Groups/string/ ServiceAccounts/string/", `["read-pods","Role/pod-reader","`},
		{rbacV1 + "/clusterrolebindings/read-secrets-global", "Name/string/name Role/string/ Age/string/ Users/string/ Groups/string/ ServiceAccounts/string/", `["read-secrets-global","ClusterRole/secret-reader","`},
		{networkingV1 + "/namespaces/default/ingresses?limit=500", "Name/string/name Class/string/ Hosts/string/ Address/string/ Ports/string/ Age/string/", `["web","\u003cnone\u003e","web.example.com","","80, 443","`},
		{networkingV1 + "/namespaces/default/networkpolicies?limit=500", "Name/string/name Pod-Selector/string/ Age/string/", `["allow-web","app=web","`},
		{priorityClass + "/high", "Name/string/name Value/integer/ Global-Default/boolean/ Age/string/ PreemptionPolicy/string/", `["high",100000,false,"`},
	} {
		header, row := tableOf(t, ts, tc.path)
		if strings.Join(header, " ") != tc.header || !strings.HasPrefix(row, tc.cells) {
			t.Errorf("%s: columns %v, first row %s\nwant %s, %s...", tc.path, header, row, tc.header, tc.cells)
		}
	}
	// The wide cells of the bindings, after AGE.
	_, row := tableOf(t, ts, rbacV1+"/namespaces/default/rolebindings/read-pods")
	if !strings.HasSuffix(row, `,"jane","","/builder"]`) {
		t.Errorf("rolebinding row %s", row)
	}
	_, row = tableOf(t, ts, rbacV1+"/clusterrolebindings/read-secrets-global")
	if !strings.HasSuffix(row, `,"","managers",""]`) {
		t.Errorf("clusterrolebinding row %s", row)
	}
}

// TestRoleRefImmutableThroughHTTP is the reference's curl of the roleRef
// patch: 422 with the internal type's field names in the value.
func TestRoleRefImmutableThroughHTTP(t *testing.T) {
	ts := startTestServer(t)
	bindings := rbacV1 + "/namespaces/default/rolebindings"
	ts.mustDo(t, 201, "POST", bindings, "application/json", `{"metadata":{"name":"read-pods"},"subjects":[{"kind":"User","name":"jane"}],"roleRef":{"kind":"Role","name":"pod-reader"}}`)
	body := ts.mustDo(t, 422, "PATCH", bindings+"/read-pods", mergePatch, `{"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"view"}}`)
	msg := `Invalid value: {"APIGroup":"rbac.authorization.k8s.io","Kind":"ClusterRole","Name":"view"}: field is immutable`
	wantInvalidStatus(t, body, `RoleBinding.rbac.authorization.k8s.io "read-pods" is invalid: roleRef: `+msg,
		metav1.StatusCause{Type: metav1.CauseType(field.ErrorTypeInvalid), Message: msg, Field: "roleRef"})
}

// TestSystemPriorityClassesSeeded: a new server has kube's two classes.
func TestSystemPriorityClassesSeeded(t *testing.T) {
	ts := startTestServer(t)
	var pc struct {
		Value            int32  `json:"value"`
		PreemptionPolicy string `json:"preemptionPolicy"`
	}
	for name, value := range map[string]int32{"system-cluster-critical": 2000000000, "system-node-critical": 2000001000} {
		if err := json.Unmarshal([]byte(ts.mustDo(t, 200, "GET", priorityClass+"/"+name, "", "")), &pc); err != nil {
			t.Fatal(err)
		}
		if pc.Value != value || pc.PreemptionPolicy != "PreemptLowerPriority" {
			t.Errorf("%s: %+v", name, pc)
		}
	}
}
