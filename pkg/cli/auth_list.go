package cli

import (
	"context"
	"fmt"
	"io"
	"reflect"
	"sort"
	"strings"

	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/cli-runtime/pkg/printers"
	"k8s.io/client-go/kubernetes"
)

// runCanIList is `auth can-i --list`: a SelfSubjectRulesReview for the
// namespace, printed as kubectl prints it — every rule broken down to one
// verb on one resource, the simple ones merged again per resource, sorted
// by their text.
func runCanIList(ctx context.Context, cs kubernetes.Interface, ns string, noHeaders bool, out, errOut io.Writer) error {
	review := &authorizationv1.SelfSubjectRulesReview{Spec: authorizationv1.SelfSubjectRulesReviewSpec{Namespace: ns}}
	res, err := cs.AuthorizationV1().SelfSubjectRulesReviews().Create(ctx, review, metav1.CreateOptions{})
	if err != nil {
		return err
	}
	if res.Status.Incomplete {
		fmt.Fprintf(errOut, "Warning: the list may be incomplete: %v\n", res.Status.EvaluationError)
	}
	var broken []rbacv1.PolicyRule
	for _, r := range reviewRules(res.Status) {
		broken = append(broken, breakdownRule(r)...)
	}
	rules := compactRules(broken)
	sort.SliceStable(rules, func(i, j int) bool { return rules[i].String() < rules[j].String() })
	w := printers.GetNewTabWriter(out)
	if !noHeaders {
		fmt.Fprintf(w, "Resources\tNon-Resource URLs\tResource Names\tVerbs\n")
	}
	for _, r := range rules {
		fmt.Fprintf(w, "%s\t%v\t%v\t%v\n", resourceWithGroup(r.Resources, r.APIGroups), r.NonResourceURLs, r.ResourceNames, r.Verbs)
	}
	return w.Flush()
}

// reviewRules are a rules review's resource and non-resource rules as
// RBAC policy rules.
func reviewRules(st authorizationv1.SubjectRulesReviewStatus) []rbacv1.PolicyRule {
	var out []rbacv1.PolicyRule
	for _, r := range st.ResourceRules {
		out = append(out, rbacv1.PolicyRule{Verbs: r.Verbs, APIGroups: r.APIGroups, Resources: r.Resources, ResourceNames: r.ResourceNames})
	}
	for _, r := range st.NonResourceRules {
		out = append(out, rbacv1.PolicyRule{Verbs: r.Verbs, NonResourceURLs: r.NonResourceURLs})
	}
	return out
}

// breakdownRule splits a rule into one rule per group, resource, verb and
// name (or per URL and verb).
func breakdownRule(rule rbacv1.PolicyRule) []rbacv1.PolicyRule {
	var out []rbacv1.PolicyRule
	for _, g := range rule.APIGroups {
		for _, res := range rule.Resources {
			for _, v := range rule.Verbs {
				if len(rule.ResourceNames) == 0 {
					out = append(out, rbacv1.PolicyRule{APIGroups: []string{g}, Resources: []string{res}, Verbs: []string{v}})
					continue
				}
				for _, n := range rule.ResourceNames {
					out = append(out, rbacv1.PolicyRule{APIGroups: []string{g}, Resources: []string{res}, Verbs: []string{v}, ResourceNames: []string{n}})
				}
			}
		}
	}
	for _, u := range rule.NonResourceURLs {
		for _, v := range rule.Verbs {
			out = append(out, rbacv1.PolicyRule{NonResourceURLs: []string{u}, Verbs: []string{v}})
		}
	}
	return out
}

// simpleRuleKey identifies a rule on one resource of one group (and at
// most one name).
type simpleRuleKey struct {
	group, resource string
	hasName         bool
	name            string
}

// compactRules merges the verbs of simple rules on the same resource; the
// other rules stay as they are, ahead of the merged ones.
func compactRules(rules []rbacv1.PolicyRule) []rbacv1.PolicyRule {
	out := make([]rbacv1.PolicyRule, 0, len(rules))
	merged := map[simpleRuleKey]*rbacv1.PolicyRule{}
	var order []simpleRuleKey
	for _, r := range rules {
		key, ok := simpleRule(r)
		if !ok {
			out = append(out, r)
			continue
		}
		existing, seen := merged[key]
		if !seen {
			merged[key] = r.DeepCopy()
			order = append(order, key)
			continue
		}
		have := sets.New(existing.Verbs...)
		for _, v := range r.Verbs {
			if !have.Has(v) {
				existing.Verbs = append(existing.Verbs, v)
			}
		}
	}
	for _, k := range order {
		out = append(out, *merged[k])
	}
	return out
}

func simpleRule(r rbacv1.PolicyRule) (simpleRuleKey, bool) {
	if len(r.ResourceNames) > 1 || len(r.NonResourceURLs) > 0 || len(r.APIGroups) != 1 || len(r.Resources) != 1 {
		return simpleRuleKey{}, false
	}
	plain := rbacv1.PolicyRule{APIGroups: r.APIGroups, Resources: r.Resources, Verbs: r.Verbs, ResourceNames: r.ResourceNames}
	if !reflect.DeepEqual(plain, r) {
		return simpleRuleKey{}, false
	}
	key := simpleRuleKey{group: r.APIGroups[0], resource: r.Resources[0]}
	if len(r.ResourceNames) == 1 {
		key.hasName, key.name = true, r.ResourceNames[0]
	}
	return key, true
}

// resourceWithGroup is "resource.group[/subresource]" for a rule's first
// resource and group.
func resourceWithGroup(resources, groups []string) string {
	if len(resources) == 0 {
		return ""
	}
	res, sub, hasSub := strings.Cut(resources[0], "/")
	if len(groups) > 0 && groups[0] != "" {
		res += "." + groups[0]
	}
	if hasSub {
		res += "/" + sub
	}
	return res
}
