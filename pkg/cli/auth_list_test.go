package cli

import (
	"reflect"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
)

func TestCanIListRules(t *testing.T) {
	rules := []rbacv1.PolicyRule{
		{APIGroups: []string{"apps"}, Resources: []string{"deployments", "deployments/scale"}, Verbs: []string{"get", "list"}},
		{APIGroups: []string{"apps"}, Resources: []string{"deployments"}, Verbs: []string{"get", "watch"}},
		{NonResourceURLs: []string{"/healthz"}, Verbs: []string{"get"}},
		{APIGroups: []string{""}, Resources: []string{"secrets"}, ResourceNames: []string{"a", "b"}, Verbs: []string{"get"}},
	}
	var broken []rbacv1.PolicyRule
	for _, r := range rules {
		broken = append(broken, breakdownRule(r)...)
	}
	if len(broken) != 4+2+1+2 {
		t.Fatalf("breakdown: %d rules: %+v", len(broken), broken)
	}
	got := compactRules(broken)
	want := []rbacv1.PolicyRule{
		{NonResourceURLs: []string{"/healthz"}, Verbs: []string{"get"}},
		{APIGroups: []string{"apps"}, Resources: []string{"deployments"}, Verbs: []string{"get", "list", "watch"}},
		{APIGroups: []string{"apps"}, Resources: []string{"deployments/scale"}, Verbs: []string{"get", "list"}},
		{APIGroups: []string{""}, Resources: []string{"secrets"}, ResourceNames: []string{"a"}, Verbs: []string{"get"}},
		{APIGroups: []string{""}, Resources: []string{"secrets"}, ResourceNames: []string{"b"}, Verbs: []string{"get"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("compact:\ngot  %+v\nwant %+v", got, want)
	}
	for _, tc := range []struct {
		res, groups []string
		want        string
	}{
		{[]string{"deployments/scale"}, []string{"apps"}, "deployments.apps/scale"},
		{[]string{"pods"}, []string{""}, "pods"},
		{nil, nil, ""},
	} {
		if got := resourceWithGroup(tc.res, tc.groups); got != tc.want {
			t.Errorf("resourceWithGroup(%v, %v) = %q, want %q", tc.res, tc.groups, got, tc.want)
		}
	}
}
