package registry

import (
	"reflect"
	"sort"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
)

func rolesByName() map[string]*rbacv1.ClusterRole {
	m := map[string]*rbacv1.ClusterRole{}
	for _, r := range BootstrapClusterRoles() {
		m[r.Name] = r
	}
	return m
}

func TestBootstrapRBACObjects(t *testing.T) {
	var names []string
	for name, r := range rolesByName() {
		names = append(names, name)
		if r.Labels[BootstrappingLabel] != "rbac-defaults" || r.Annotations[rbacv1.AutoUpdateAnnotationKey] != "true" {
			t.Errorf("%s: labels %v annotations %v", name, r.Labels, r.Annotations)
		}
		if errs := (clusterRoleStrategy{}).Validate(r); len(errs) > 0 {
			t.Errorf("%s invalid: %v", name, errs)
		}
		if len(r.Rules) == 0 {
			t.Errorf("%s has no rules", name)
		}
	}
	sort.Strings(names)
	want := []string{"admin", "cluster-admin", "edit", "system:aggregate-to-admin", "system:aggregate-to-edit", "system:aggregate-to-view",
		"system:basic-user", "system:discovery", "system:public-info-viewer", "view"}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("roles %v\nwant %v", names, want)
	}

	bindings := map[string][]string{}
	for _, b := range BootstrapClusterRoleBindings() {
		if errs := (clusterRoleBindingStrategy{}).Validate(b); len(errs) > 0 {
			t.Errorf("%s invalid: %v", b.Name, errs)
		}
		if b.RoleRef.Name != b.Name || b.Labels[BootstrappingLabel] != "rbac-defaults" {
			t.Errorf("%s: roleRef %v labels %v", b.Name, b.RoleRef, b.Labels)
		}
		for _, s := range b.Subjects {
			if s.Kind != "Group" || s.APIGroup != rbacv1.GroupName {
				t.Errorf("%s: subject %+v", b.Name, s)
			}
			bindings[b.Name] = append(bindings[b.Name], s.Name)
		}
	}
	wantBindings := map[string][]string{
		"cluster-admin":             {"system:masters"},
		"system:discovery":          {"system:authenticated"},
		"system:basic-user":         {"system:authenticated"},
		"system:public-info-viewer": {"system:authenticated", "system:unauthenticated"},
	}
	if !reflect.DeepEqual(bindings, wantBindings) {
		t.Errorf("bindings %v\nwant %v", bindings, wantBindings)
	}
}

// admin, edit and view hold what kube's aggregation controller gives
// them: view the aggregate-to-view rules; edit the aggregate-to-edit ones,
// then view's; admin edit's, then aggregate-to-admin's.
func TestBootstrapRolesAggregated(t *testing.T) {
	roles := rolesByName()
	concat := func(lists ...[]rbacv1.PolicyRule) []rbacv1.PolicyRule {
		var out []rbacv1.PolicyRule
		for _, l := range lists {
			out = append(out, l...)
		}
		return out
	}
	view := aggregateToViewRules()
	edit := concat(aggregateToEditRules(), view)
	admin := concat(edit, aggregateToAdminRules())
	for name, want := range map[string][]rbacv1.PolicyRule{"view": view, "edit": edit, "admin": admin} {
		if got := roles[name].Rules; !reflect.DeepEqual(got, want) {
			t.Errorf("%s rules:\n got %v\nwant %v", name, got, want)
		}
		if roles[name].AggregationRule == nil {
			t.Errorf("%s lost its aggregationRule", name)
		}
	}
	// Lists are stored sorted, as kube's bootstrap policy builds them.
	d := roles["system:discovery"].Rules[0].NonResourceURLs
	if !sort.StringsAreSorted(d) || d[0] != "/api" {
		t.Errorf("discovery URLs %v", d)
	}
	if v := roles["system:aggregate-to-edit"].Rules[2].Verbs; !reflect.DeepEqual(v, []string{"create", "delete", "deletecollection", "patch", "update"}) {
		t.Errorf("write verbs %v", v)
	}
}

func TestAggregationDeduplicates(t *testing.T) {
	shared := resourceRule(readVerbs, legacyGroup, "pods")
	roles := []*rbacv1.ClusterRole{
		bootstrapRole("agg", nil, aggregationRule("x"), nil),
		bootstrapRole("b", map[string]string{"x": "true"}, nil, []rbacv1.PolicyRule{shared, resourceRule(readVerbs, legacyGroup, "secrets")}),
		bootstrapRole("a", map[string]string{"x": "true"}, nil, []rbacv1.PolicyRule{shared}),
		bootstrapRole("c", map[string]string{"x": "false"}, nil, []rbacv1.PolicyRule{resourceRule(readVerbs, legacyGroup, "nodes")}),
	}
	aggregateBootstrapRoles(roles)
	want := []rbacv1.PolicyRule{shared, resourceRule(readVerbs, legacyGroup, "secrets")}
	if !reflect.DeepEqual(roles[0].Rules, want) {
		t.Errorf("rules %v\nwant %v", roles[0].Rules, want)
	}
}
