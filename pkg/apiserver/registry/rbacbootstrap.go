package registry

// kube-apiserver's bootstrap RBAC policy, the part a user meets: the
// ClusterRoles cluster-admin, admin, edit, view, system:discovery,
// system:basic-user and system:public-info-viewer (with the
// system:aggregate-to-admin/edit/view roles admin, edit and view are
// aggregated from), and the ClusterRoleBindings that give cluster-admin to
// system:masters and the basics to every user. Seeded at start like the
// system priority classes, each labelled kubernetes.io/bootstrapping:
// rbac-defaults and annotated rbac.authorization.kubernetes.io/autoupdate:
// "true", as kube's.
//
// kube's clusterrole-aggregation controller fills the rules of a role
// with an aggregationRule from the roles its selectors match; it does not
// run here, so the seeded admin, edit and view get their rules filled the
// same way once, at seed time (aggregateBootstrapRoles). A role a user
// labels aggregate-to-view later is not added to view.

import (
	"sort"

	rbacv1 "k8s.io/api/rbac/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// The label and annotation every bootstrap object carries, and the labels
// that aggregate rules into admin, edit and view.
const (
	BootstrappingLabel   = "kubernetes.io/bootstrapping"
	aggregateToAdmin     = "rbac.authorization.k8s.io/aggregate-to-admin"
	aggregateToEdit      = "rbac.authorization.k8s.io/aggregate-to-edit"
	aggregateToView      = "rbac.authorization.k8s.io/aggregate-to-view"
	bootstrappingDefault = "rbac-defaults"
)

// BootstrapClusterRoles are the ClusterRoles miniapi seeds, their
// aggregated rules filled in.
func BootstrapClusterRoles() []*rbacv1.ClusterRole {
	roles := []*rbacv1.ClusterRole{
		bootstrapRole("cluster-admin", nil, nil, clusterAdminRules()),
		bootstrapRole("system:discovery", nil, nil, discoveryRules()),
		bootstrapRole("system:basic-user", nil, nil, basicUserRules()),
		bootstrapRole("system:public-info-viewer", nil, nil, publicInfoViewerRules()),
		bootstrapRole("admin", nil, aggregationRule(aggregateToAdmin), nil),
		bootstrapRole("edit", map[string]string{aggregateToAdmin: "true"}, aggregationRule(aggregateToEdit), nil),
		bootstrapRole("view", map[string]string{aggregateToEdit: "true"}, aggregationRule(aggregateToView), nil),
		bootstrapRole("system:aggregate-to-admin", map[string]string{aggregateToAdmin: "true"}, nil, aggregateToAdminRules()),
		bootstrapRole("system:aggregate-to-edit", map[string]string{aggregateToEdit: "true"}, nil, aggregateToEditRules()),
		bootstrapRole("system:aggregate-to-view", map[string]string{aggregateToView: "true"}, nil, aggregateToViewRules()),
	}
	aggregateBootstrapRoles(roles)
	return roles
}

// BootstrapClusterRoleBindings are the ClusterRoleBindings miniapi seeds.
func BootstrapClusterRoleBindings() []*rbacv1.ClusterRoleBinding {
	return []*rbacv1.ClusterRoleBinding{
		bootstrapBinding("cluster-admin", "system:masters"),
		bootstrapBinding("system:discovery", "system:authenticated"),
		bootstrapBinding("system:basic-user", "system:authenticated"),
		bootstrapBinding("system:public-info-viewer", "system:authenticated", "system:unauthenticated"),
	}
}

// bootstrapMeta is name's metadata with kube's bootstrap label and
// annotation added to labels.
func bootstrapMeta(name string, extra map[string]string) metav1.ObjectMeta {
	l := map[string]string{BootstrappingLabel: bootstrappingDefault}
	for k, v := range extra {
		l[k] = v
	}
	return metav1.ObjectMeta{
		Name:        name,
		Labels:      l,
		Annotations: map[string]string{rbacv1.AutoUpdateAnnotationKey: "true"},
	}
}

func bootstrapRole(name string, extraLabels map[string]string, agg *rbacv1.AggregationRule, rules []rbacv1.PolicyRule) *rbacv1.ClusterRole {
	return &rbacv1.ClusterRole{ObjectMeta: bootstrapMeta(name, extraLabels), AggregationRule: agg, Rules: rules}
}

func aggregationRule(label string) *rbacv1.AggregationRule {
	return &rbacv1.AggregationRule{ClusterRoleSelectors: []metav1.LabelSelector{{MatchLabels: map[string]string{label: "true"}}}}
}

// bootstrapBinding binds the ClusterRole of the same name to groups.
func bootstrapBinding(name string, groups ...string) *rbacv1.ClusterRoleBinding {
	b := &rbacv1.ClusterRoleBinding{
		ObjectMeta: bootstrapMeta(name, nil),
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacGroup, Kind: "ClusterRole", Name: name},
	}
	for _, g := range groups {
		b.Subjects = append(b.Subjects, rbacv1.Subject{Kind: rbacv1.GroupKind, APIGroup: rbacGroup, Name: g})
	}
	return b
}

// aggregateBootstrapRoles fills the rules of each role with an
// aggregationRule as kube's clusterrole-aggregation controller does: the
// rules of every other role a selector matches, roles taken by name, each
// rule once. An aggregated role may itself feed another (view into edit,
// edit into admin), so it repeats until nothing changes.
func aggregateBootstrapRoles(roles []*rbacv1.ClusterRole) {
	sorted := append([]*rbacv1.ClusterRole{}, roles...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	for range len(roles) {
		changed := false
		for _, r := range roles {
			if r.AggregationRule == nil {
				continue
			}
			rules := aggregatedRules(r, sorted)
			if !apiequality.Semantic.DeepEqual(rules, r.Rules) {
				r.Rules, changed = rules, true
			}
		}
		if !changed {
			return
		}
	}
}

// aggregatedRules are the rules of the roles (sorted by name) that r's
// selectors match, r excepted, each rule once.
func aggregatedRules(r *rbacv1.ClusterRole, sorted []*rbacv1.ClusterRole) []rbacv1.PolicyRule {
	var rules []rbacv1.PolicyRule
	for _, sel := range r.AggregationRule.ClusterRoleSelectors {
		// The bootstrap selectors are all matchLabels.
		selector := labels.SelectorFromSet(sel.MatchLabels)
		for _, other := range sorted {
			if other.Name == r.Name || !selector.Matches(labels.Set(other.Labels)) {
				continue
			}
			for _, rule := range other.Rules {
				if !containsRule(rules, rule) {
					rules = append(rules, rule)
				}
			}
		}
	}
	return rules
}

func containsRule(rules []rbacv1.PolicyRule, rule rbacv1.PolicyRule) bool {
	for _, r := range rules {
		if apiequality.Semantic.DeepEqual(r, rule) {
			return true
		}
	}
	return false
}
