package registry

// Shared rules of the rbac.authorization.k8s.io/v1 kinds: names that only
// need to be usable in a URL path, policy rules, subjects and role
// references, with kube-apiserver's defaults, field paths and messages.
// Nothing here authorizes anything: miniapi stores RBAC objects so that
// manifests and tools that write them work, and enforces none of them.

import (
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/validate/content"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

const rbacGroup = rbacv1.GroupName

// rbacName is kube's rule for the names of roles and bindings: anything
// that can be one segment of a URL path (a generated name's prefix too).
func rbacName(name string, prefix bool) []string {
	if prefix {
		return content.IsPathSegmentPrefix(name)
	}
	return content.IsPathSegmentName(name)
}

// validatePolicyRules checks each rule as kube does; namespaced rules (a
// Role's) may not name non-resource URLs.
func validatePolicyRules(rules []rbacv1.PolicyRule, namespaced bool) field.ErrorList {
	var errs field.ErrorList
	for i, rule := range rules {
		errs = append(errs, validatePolicyRule(rule, namespaced, field.NewPath("rules").Index(i))...)
	}
	return errs
}

func validatePolicyRule(rule rbacv1.PolicyRule, namespaced bool, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(rule.Verbs) == 0 {
		// kube 1.37's declarative validation words this without a detail.
		errs = append(errs, field.Required(p.Child("verbs"), ""))
	}
	if len(rule.NonResourceURLs) > 0 {
		if namespaced {
			errs = append(errs, field.Invalid(p.Child("nonResourceURLs"), rule.NonResourceURLs, "namespaced rules cannot apply to non-resource URLs"))
		}
		if len(rule.APIGroups) > 0 || len(rule.Resources) > 0 || len(rule.ResourceNames) > 0 {
			errs = append(errs, field.Invalid(p.Child("nonResourceURLs"), rule.NonResourceURLs, "rules cannot apply to both regular resources and non-resource URLs"))
		}
		return errs
	}
	if len(rule.APIGroups) == 0 {
		errs = append(errs, field.Required(p.Child("apiGroups"), "resource rules must supply at least one api group"))
	}
	if len(rule.Resources) == 0 {
		errs = append(errs, field.Required(p.Child("resources"), "resource rules must supply at least one resource"))
	}
	if len(rule.ResourceNames) > 0 && len(rule.Resources) > 1 {
		errs = append(errs, field.Required(p.Child("resourceNames"), "resource names cannot apply to multiple resources"))
	}
	return errs
}

// defaultRoleRef fills the API group a role reference may leave out.
func defaultRoleRef(ref *rbacv1.RoleRef) {
	if ref.APIGroup == "" {
		ref.APIGroup = rbacGroup
	}
}

// defaultSubjects fills each subject's API group as kube does: none for
// service accounts, rbac.authorization.k8s.io for users and groups.
func defaultSubjects(subjects []rbacv1.Subject) {
	for i := range subjects {
		s := &subjects[i]
		if s.APIGroup != "" {
			continue
		}
		switch s.Kind {
		case rbacv1.UserKind, rbacv1.GroupKind:
			s.APIGroup = rbacGroup
		}
	}
}

// validateRoleRef checks a binding's roleRef; kinds are the kinds it may
// name (a ClusterRoleBinding only ClusterRoles).
func validateRoleRef(ref rbacv1.RoleRef, kinds []string) field.ErrorList {
	var errs field.ErrorList
	p := field.NewPath("roleRef")
	if ref.APIGroup != rbacGroup {
		errs = append(errs, field.NotSupported(p.Child("apiGroup"), ref.APIGroup, []string{rbacGroup}))
	}
	known := false
	for _, k := range kinds {
		known = known || ref.Kind == k
	}
	if !known {
		errs = append(errs, field.NotSupported(p.Child("kind"), ref.Kind, kinds))
	}
	if ref.Name == "" {
		return append(errs, field.Required(p.Child("name"), ""))
	}
	for _, msg := range rbacName(ref.Name, false) {
		errs = append(errs, field.Invalid(p.Child("name"), ref.Name, msg))
	}
	return errs
}

// roleRefValue is how kube renders a roleRef in its errors: its internal
// type, whose fields have no JSON names.
type roleRefValue struct{ APIGroup, Kind, Name string }

// roleRefUnchanged is the rule that a binding's roleRef never changes.
func roleRefUnchanged(ref, old rbacv1.RoleRef) field.ErrorList {
	if ref == old {
		return nil
	}
	return field.ErrorList{field.Invalid(field.NewPath("roleRef"), roleRefValue{ref.APIGroup, ref.Kind, ref.Name}, apimachineryvalidation.FieldImmutableErrorMsg)}
}

// validateSubjects checks each subject; a ClusterRoleBinding's service
// accounts must say their namespace.
func validateSubjects(subjects []rbacv1.Subject, namespaced bool) field.ErrorList {
	var errs field.ErrorList
	for i, s := range subjects {
		errs = append(errs, validateSubject(s, namespaced, field.NewPath("subjects").Index(i))...)
	}
	return errs
}

func validateSubject(s rbacv1.Subject, namespaced bool, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if s.Name == "" {
		errs = append(errs, field.Required(p.Child("name"), ""))
	}
	switch s.Kind {
	case rbacv1.ServiceAccountKind:
		if s.Name != "" {
			for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(s.Name, false) {
				errs = append(errs, field.Invalid(p.Child("name"), s.Name, msg))
			}
		}
		if s.APIGroup != "" {
			errs = append(errs, field.NotSupported(p.Child("apiGroup"), s.APIGroup, []string{""}))
		}
		if !namespaced && s.Namespace == "" {
			errs = append(errs, field.Required(p.Child("namespace"), ""))
		}
	case rbacv1.UserKind, rbacv1.GroupKind:
		if s.Name == "" {
			what := map[string]string{rbacv1.UserKind: "user", rbacv1.GroupKind: "group"}[s.Kind]
			errs = append(errs, field.Invalid(p.Child("name"), s.Name, what+" name cannot be empty"))
		}
		if s.APIGroup != rbacGroup {
			errs = append(errs, field.NotSupported(p.Child("apiGroup"), s.APIGroup, []string{rbacGroup}))
		}
	default:
		errs = append(errs, field.NotSupported(p.Child("kind"), s.Kind, []string{rbacv1.ServiceAccountKind, rbacv1.UserKind, rbacv1.GroupKind}))
	}
	return errs
}
