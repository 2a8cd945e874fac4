package printers

import (
	"reflect"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// checkTable renders obj with fn and compares the header, the column
// descriptions the reference file records (cut at 60 characters) and the
// first row's cells as JSON.
func checkTable(t *testing.T, fn func(runtime.Object, time.Time) (*metav1.Table, error), obj runtime.Object, header0 []string, docs map[string]string, cells string) {
	t.Helper()
	table, err := fn(obj, now)
	if err != nil {
		t.Fatal(err)
	}
	if got := header(table.ColumnDefinitions); !reflect.DeepEqual(got, header0) {
		t.Errorf("columns = %v, want %v", got, header0)
	}
	checkDescriptions(t, table.ColumnDefinitions, docs)
	if len(table.Rows) != 1 {
		t.Fatalf("%d rows", len(table.Rows))
	}
	if got := cellsJSON(t, table.Rows[0]); got != cells {
		t.Errorf("cells = %s, want %s", got, cells)
	}
}

var bindingHeader = []string{"Name/string/0/name", "Role/string/0", "Age/string/0", "Users/string/1", "Groups/string/1", "ServiceAccounts/string/1"}

func TestRoleBindingTables(t *testing.T) {
	rb := &rbacv1.RoleBindingList{Items: []rbacv1.RoleBinding{{
		ObjectMeta: metav1.ObjectMeta{Name: "read-pods", CreationTimestamp: created},
		Subjects:   []rbacv1.Subject{{Kind: "User", Name: "jane"}, {Kind: "ServiceAccount", Name: "builder"}},
		RoleRef:    rbacv1.RoleRef{Kind: "Role", Name: "pod-reader"},
	}}}
	checkTable(t, RoleBindings, rb, bindingHeader, map[string]string{
		"Role":  "roleRef can reference a Role in the current namespace or a C",
		"Users": "Users in the roleBinding", "Groups": "Groups in the roleBinding", "ServiceAccounts": "ServiceAccounts in the roleBinding",
	}, `["read-pods","Role/pod-reader","2s","jane","","/builder"]`)

	crb := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "read-secrets-global", CreationTimestamp: created},
		Subjects: []rbacv1.Subject{{Kind: "Group", Name: "managers"}, {Kind: "Group", Name: "admins"},
			{Kind: "ServiceAccount", Name: "ci", Namespace: "tools"}},
		RoleRef: rbacv1.RoleRef{Kind: "ClusterRole", Name: "secret-reader"},
	}
	checkTable(t, ClusterRoleBindings, crb, bindingHeader, map[string]string{
		"Role":  "roleRef can only reference a ClusterRole in the global names",
		"Users": "Users in the clusterRoleBinding", "ServiceAccounts": "ServiceAccounts in the clusterRoleBinding",
	}, `["read-secrets-global","ClusterRole/secret-reader","2s","","managers, admins","tools/ci"]`)
}

func TestIngressTables(t *testing.T) {
	ing := &networkingv1.Ingress{
		ObjectMeta: metav1.ObjectMeta{Name: "web", CreationTimestamp: created},
		Spec: networkingv1.IngressSpec{
			Rules: []networkingv1.IngressRule{{Host: "web.example.com"}},
			TLS:   []networkingv1.IngressTLS{{Hosts: []string{"web.example.com"}}},
		},
	}
	checkTable(t, Ingresses, ing,
		[]string{"Name/string/0/name", "Class/string/0", "Hosts/string/0", "Address/string/0", "Ports/string/0", "Age/string/0"},
		map[string]string{
			"Class":   "The name of the IngressClass resource that should be used fo",
			"Hosts":   "Hosts that incoming requests are matched against before the ",
			"Address": "Address is a list containing ingress points for the load-bal",
			"Ports":   "Ports of TLS configurations that open",
		}, `["web","\u003cnone\u003e","web.example.com","","80, 443","2s"]`)

	many := ing.DeepCopy()
	many.Spec.IngressClassName = ptrTo("nginx")
	many.Spec.TLS = nil
	many.Spec.Rules = []networkingv1.IngressRule{{Host: "a.example.com"}, {}, {Host: "b.example.com"}, {Host: "c.example.com"}, {Host: "d.example.com"}}
	many.Status.LoadBalancer.Ingress = []networkingv1.IngressLoadBalancerIngress{{IP: "10.0.0.2"}, {Hostname: "lb.example.com"}, {IP: "10.0.0.1"}, {IP: "10.0.0.2"}}
	table, _ := Ingresses(many, now)
	if got := cellsJSON(t, table.Rows[0]); got != `["web","nginx","a.example.com,b.example.com,c.example.com + 2 more...","10.0.0.1,10.0.0.2,lb.example.com","80","2s"]` {
		t.Errorf("cells = %s", got)
	}
	if got := ingressHosts(nil); got != "*" {
		t.Errorf("hosts of no rules = %q", got)
	}

	class := &networkingv1.IngressClass{
		ObjectMeta: metav1.ObjectMeta{Name: "nginx", CreationTimestamp: created},
		Spec: networkingv1.IngressClassSpec{Controller: "k8s.io/ingress-nginx",
			Parameters: &networkingv1.IngressClassParametersReference{APIGroup: ptrTo("k8s.example.com"), Kind: "IngressParameters", Name: "lb"}},
	}
	checkTable(t, IngressClasses, class,
		[]string{"Name/string/0/name", "Controller/string/0", "Parameters/string/0", "Age/string/0"},
		map[string]string{"Controller": "Controller that is responsible for handling this class"},
		`["nginx","k8s.io/ingress-nginx","IngressParameters.k8s.example.com/lb","2s"]`)
}

func TestNetworkPolicyTable(t *testing.T) {
	np := &networkingv1.NetworkPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "allow-web", CreationTimestamp: created},
		Spec:       networkingv1.NetworkPolicySpec{PodSelector: metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}},
	}
	checkTable(t, NetworkPolicies, np, []string{"Name/string/0/name", "Pod-Selector/string/0", "Age/string/0"},
		map[string]string{"Pod-Selector": "podSelector selects the pods to which this NetworkPolicy obj"},
		`["allow-web","app=web","2s"]`)
	np.Spec.PodSelector = metav1.LabelSelector{}
	table, _ := NetworkPolicies(np, now)
	if got := cellsJSON(t, table.Rows[0]); got != `["allow-web","\u003cnone\u003e","2s"]` {
		t.Errorf("empty selector cells = %s", got)
	}
}

func TestPriorityClassTable(t *testing.T) {
	policy := corev1.PreemptLowerPriority
	pc := &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "high", CreationTimestamp: created}, Value: 100000, PreemptionPolicy: &policy}
	checkTable(t, PriorityClasses, pc,
		[]string{"Name/string/0/name", "Value/integer/0", "Global-Default/boolean/0", "Age/string/0", "PreemptionPolicy/string/0"},
		map[string]string{
			"Value":            "value represents the integer value of this priority class. T",
			"Global-Default":   "globalDefault specifies whether this PriorityClass should be",
			"PreemptionPolicy": "preemptionPolicy is the Policy for preempting pods with lowe",
		}, `["high",100000,false,"2s","PreemptLowerPriority"]`)
}

func TestStorageClassTable(t *testing.T) {
	sc := &storagev1.StorageClass{
		ObjectMeta:  metav1.ObjectMeta{Name: "standard", CreationTimestamp: created, Annotations: map[string]string{"storageclass.kubernetes.io/is-default-class": "true"}},
		Provisioner: "rancher.io/local-path",
	}
	checkTable(t, StorageClasses, sc,
		[]string{"Name/string/0/name", "Provisioner/string/0", "ReclaimPolicy/string/0", "VolumeBindingMode/string/0", "AllowVolumeExpansion/string/0", "Age/string/0"},
		map[string]string{"Provisioner": "provisioner indicates the type of the provisioner."},
		`["standard (default)","rancher.io/local-path","Delete","Immediate",false,"2s"]`)
}

func ptrTo[T any](v T) *T { return &v }
