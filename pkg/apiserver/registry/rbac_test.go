package registry

import (
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func podReader() *rbacv1.Role {
	return &rbacv1.Role{ObjectMeta: objMeta("pod-reader", "default"), Rules: []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get", "list", "watch"}},
	}}
}

func TestRoleValidation(t *testing.T) {
	s := roleStrategy{}
	wantErrors(t, s.Validate(podReader()))

	noVerbs := podReader()
	noVerbs.Rules[0].Verbs = nil
	wantErrors(t, s.Validate(noVerbs), "rules[0].verbs: Required value") // the reference's 1.37 wording

	bare := podReader()
	bare.Rules = []rbacv1.PolicyRule{{Verbs: []string{"get"}}}
	wantErrors(t, s.Validate(bare),
		"rules[0].apiGroups: Required value: resource rules must supply at least one api group",
		"rules[0].resources: Required value: resource rules must supply at least one resource")

	urls := podReader()
	urls.Rules[0].NonResourceURLs = []string{"/healthz"}
	wantErrors(t, s.Validate(urls),
		`rules[0].nonResourceURLs: Invalid value: ["/healthz"]: namespaced rules cannot apply to non-resource URLs`,
		`rules[0].nonResourceURLs: Invalid value: ["/healthz"]: rules cannot apply to both regular resources and non-resource URLs`)

	// Role names need only be path segments: capitals and colons pass.
	named := podReader()
	named.Name = "System:Reader"
	wantErrors(t, s.Validate(named))
	named.Name = "a/b"
	wantErrors(t, s.Validate(named), `metadata.name: Invalid value: "a/b": may not contain '/'`)
}

func TestClusterRoleValidation(t *testing.T) {
	s := clusterRoleStrategy{}
	cr := &rbacv1.ClusterRole{ObjectMeta: objMeta("secret-reader", ""), Rules: []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get", "list"}},
		{NonResourceURLs: []string{"/healthz"}, Verbs: []string{"get"}},
	}}
	wantErrors(t, s.Validate(cr))

	agg := cr.DeepCopy()
	agg.AggregationRule = &rbacv1.AggregationRule{}
	wantErrors(t, s.Validate(agg), "aggregationRule.clusterRoleSelectors: Required value: at least one clusterRoleSelector required if aggregationRule is non-nil")
	agg.AggregationRule.ClusterRoleSelectors = []metav1.LabelSelector{{MatchLabels: map[string]string{"rbac.example.com/aggregate-to-monitoring": "true"}}}
	wantErrors(t, s.Validate(agg))
	agg.AggregationRule.ClusterRoleSelectors[0].MatchLabels = map[string]string{"bad key!": "x"}
	wantErrorContaining(t, s.Validate(agg), `aggregationRule.clusterRoleSelectors[0].matchLabels: Invalid value: "bad key!"`)

	namespaced := cr.DeepCopy()
	namespaced.Namespace = "default"
	wantErrors(t, s.Validate(namespaced), "metadata.namespace: Forbidden: not allowed on this type")
}

func readPods() *rbacv1.RoleBinding {
	return &rbacv1.RoleBinding{
		ObjectMeta: objMeta("read-pods", "default"),
		Subjects:   []rbacv1.Subject{{Kind: "User", Name: "jane"}, {Kind: "ServiceAccount", Name: "builder"}},
		RoleRef:    rbacv1.RoleRef{Kind: "Role", Name: "pod-reader"},
	}
}

func TestRoleBindingDefaults(t *testing.T) {
	b := readPods()
	roleBindingStrategy{}.PrepareForCreate(b)
	if b.RoleRef.APIGroup != rbacGroup || b.Subjects[0].APIGroup != rbacGroup || b.Subjects[1].APIGroup != "" {
		t.Errorf("defaults: roleRef %+v, subjects %+v", b.RoleRef, b.Subjects)
	}
	wantErrors(t, roleBindingStrategy{}.Validate(b))
}

func TestRoleBindingValidation(t *testing.T) {
	s := roleBindingStrategy{}
	robot := readPods()
	robot.Subjects[0].Kind = "Robot"
	s.PrepareForCreate(robot)
	wantErrors(t, s.Validate(robot), `subjects[0].kind: Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"`)

	ref := readPods()
	ref.RoleRef = rbacv1.RoleRef{APIGroup: "example.com", Kind: "Secret"}
	s.PrepareForCreate(ref)
	wantErrors(t, s.Validate(ref),
		`roleRef.apiGroup: Unsupported value: "example.com": supported values: "rbac.authorization.k8s.io"`,
		`roleRef.kind: Unsupported value: "Secret": supported values: "Role", "ClusterRole"`,
		"roleRef.name: Required value")

	nameless := readPods()
	nameless.Subjects[0].Name = ""
	s.PrepareForCreate(nameless)
	wantErrors(t, s.Validate(nameless), "subjects[0].name: Required value", `subjects[0].name: Invalid value: "": user name cannot be empty`)

	old := readPods()
	old.ObjectMeta = storedMeta("read-pods", "default")
	s.PrepareForCreate(old)
	upd := old.DeepCopy()
	upd.RoleRef = rbacv1.RoleRef{APIGroup: rbacGroup, Kind: "ClusterRole", Name: "view"}
	s.PrepareForUpdate(upd, old)
	wantErrors(t, s.ValidateUpdate(upd, old),
		`roleRef: Invalid value: {"APIGroup":"rbac.authorization.k8s.io","Kind":"ClusterRole","Name":"view"}: field is immutable`)
	same := old.DeepCopy()
	same.Subjects = append(same.Subjects, rbacv1.Subject{Kind: "Group", Name: "devs"})
	s.PrepareForUpdate(same, old)
	wantErrors(t, s.ValidateUpdate(same, old))
}

func TestClusterRoleBindingValidation(t *testing.T) {
	s := clusterRoleBindingStrategy{}
	b := &rbacv1.ClusterRoleBinding{
		ObjectMeta: objMeta("read-secrets-global", ""),
		Subjects:   []rbacv1.Subject{{Kind: "Group", Name: "managers"}, {Kind: "ServiceAccount", Name: "builder"}},
		RoleRef:    rbacv1.RoleRef{Kind: "Role", Name: "secret-reader"},
	}
	s.PrepareForCreate(b)
	if b.Subjects[0].APIGroup != rbacGroup || b.RoleRef.APIGroup != rbacGroup {
		t.Errorf("defaults: %+v %+v", b.Subjects, b.RoleRef)
	}
	wantErrors(t, s.Validate(b),
		`roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"`,
		"subjects[1].namespace: Required value")
}
