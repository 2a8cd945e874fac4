package registry

// The rules of kube-apiserver's bootstrap ClusterRoles that miniapi
// seeds (see rbacbootstrap.go): the superuser, the discovery and
// self-review basics every user is bound to, and the user-facing
// admin/edit/view roles, which kube builds by aggregation from its
// system:aggregate-to-* roles. The rules below are those roles' as kube's
// bootstrap policy defines them (post-1.22: edit may no longer write
// endpoints); each list is sorted, as kube stores them.

import (
	"sort"

	rbacv1 "k8s.io/api/rbac/v1"
)

// kube's verb sets.
var (
	readVerbs      = []string{"get", "list", "watch"}
	writeVerbs     = []string{"create", "update", "patch", "delete", "deletecollection"}
	readWriteVerbs = append(append([]string{}, readVerbs...), writeVerbs...)
)

// The API groups the bootstrap rules name (with the authentication,
// authorization and networking ones the kinds' files name).
const (
	legacyGroup      = ""
	appsGroup        = "apps"
	autoscalingGroup = "autoscaling"
	batchGroup       = "batch"
	discoveryGroup   = "discovery.k8s.io"
	extensionsGroup  = "extensions"
	policyGroup      = "policy"
)

// resourceRule allows verbs on resources of group, with its lists sorted.
func resourceRule(verbs []string, group string, resources ...string) rbacv1.PolicyRule {
	return rbacv1.PolicyRule{Verbs: sortedCopy(verbs), APIGroups: []string{group}, Resources: sortedCopy(resources)}
}

// urlRule allows verbs on non-resource URLs, with its lists sorted.
func urlRule(verbs []string, urls ...string) rbacv1.PolicyRule {
	return rbacv1.PolicyRule{Verbs: sortedCopy(verbs), NonResourceURLs: sortedCopy(urls)}
}

func sortedCopy(s []string) []string {
	out := append([]string{}, s...)
	sort.Strings(out)
	return out
}

// clusterAdminRules: everything, everywhere.
func clusterAdminRules() []rbacv1.PolicyRule {
	return []rbacv1.PolicyRule{
		{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}},
		{Verbs: []string{"*"}, NonResourceURLs: []string{"*"}},
	}
}

// discoveryRules: enough to tell whether the server is ready and to
// discover its API.
func discoveryRules() []rbacv1.PolicyRule {
	return []rbacv1.PolicyRule{urlRule([]string{"get"},
		"/livez", "/readyz", "/healthz", "/version", "/version/", "/openapi", "/openapi/*", "/api", "/api/*", "/apis", "/apis/*")}
}

// basicUserRules: a user may ask what they themselves may do, and who
// they are.
func basicUserRules() []rbacv1.PolicyRule {
	return []rbacv1.PolicyRule{
		resourceRule([]string{"create"}, authorizationGroup, "selfsubjectaccessreviews", "selfsubjectrulesreviews"),
		resourceRule([]string{"create"}, authenticationGroup, "selfsubjectreviews"),
	}
}

// publicInfoViewerRules: the health and version URLs, which are not
// sensitive.
func publicInfoViewerRules() []rbacv1.PolicyRule {
	return []rbacv1.PolicyRule{urlRule([]string{"get"}, "/livez", "/readyz", "/healthz", "/version", "/version/")}
}

// aggregateToAdminRules: what admin adds to edit, the power to grant.
func aggregateToAdminRules() []rbacv1.PolicyRule {
	return []rbacv1.PolicyRule{
		resourceRule([]string{"create"}, authorizationGroup, "localsubjectaccessreviews"),
		resourceRule(readWriteVerbs, rbacGroup, "roles", "rolebindings"),
	}
}

// aggregateToEditRules: what edit adds to view, every user-level write in
// a namespace.
func aggregateToEditRules() []rbacv1.PolicyRule {
	return []rbacv1.PolicyRule{
		resourceRule(readVerbs, legacyGroup, "pods/attach", "pods/proxy", "pods/exec", "pods/portforward", "secrets", "services/proxy"),
		resourceRule([]string{"impersonate"}, legacyGroup, "serviceaccounts"),
		resourceRule(writeVerbs, legacyGroup, "pods", "pods/attach", "pods/proxy", "pods/exec", "pods/portforward"),
		resourceRule(writeVerbs, legacyGroup, "replicationcontrollers", "replicationcontrollers/scale", "serviceaccounts",
			"services", "services/proxy", "persistentvolumeclaims", "configmaps", "secrets"),
		resourceRule(writeVerbs, appsGroup, "statefulsets", "statefulsets/scale", "daemonsets",
			"deployments", "deployments/scale", "deployments/rollback", "replicasets", "replicasets/scale"),
		resourceRule(writeVerbs, autoscalingGroup, "horizontalpodautoscalers"),
		resourceRule(writeVerbs, batchGroup, "jobs", "cronjobs"),
		resourceRule(writeVerbs, extensionsGroup, "daemonsets", "deployments", "deployments/scale", "deployments/rollback",
			"ingresses", "replicasets", "replicasets/scale", "replicationcontrollers/scale", "networkpolicies"),
		resourceRule(writeVerbs, policyGroup, "poddisruptionbudgets"),
		resourceRule(writeVerbs, networkingGroup, "networkpolicies", "ingresses"),
	}
}

// aggregateToViewRules: reading what a namespace holds, secrets and the
// other escalating resources excepted.
func aggregateToViewRules() []rbacv1.PolicyRule {
	return []rbacv1.PolicyRule{
		resourceRule(readVerbs, legacyGroup, "pods", "replicationcontrollers", "replicationcontrollers/scale", "serviceaccounts",
			"services", "services/status", "endpoints", "persistentvolumeclaims", "persistentvolumeclaims/status", "configmaps"),
		resourceRule(readVerbs, legacyGroup, "limitranges", "resourcequotas", "bindings", "events",
			"pods/status", "resourcequotas/status", "namespaces/status", "replicationcontrollers/status", "pods/log"),
		// Reading namespaces in a namespace means reading this one.
		resourceRule(readVerbs, legacyGroup, "namespaces"),
		resourceRule(readVerbs, discoveryGroup, "endpointslices"),
		resourceRule(readVerbs, appsGroup, "controllerrevisions", "statefulsets", "statefulsets/status", "statefulsets/scale",
			"daemonsets", "daemonsets/status", "deployments", "deployments/status", "deployments/scale",
			"replicasets", "replicasets/status", "replicasets/scale"),
		resourceRule(readVerbs, autoscalingGroup, "horizontalpodautoscalers", "horizontalpodautoscalers/status"),
		resourceRule(readVerbs, batchGroup, "jobs", "cronjobs", "cronjobs/status", "jobs/status"),
		resourceRule(readVerbs, extensionsGroup, "daemonsets", "daemonsets/status", "deployments", "deployments/scale", "deployments/status",
			"ingresses", "ingresses/status", "replicasets", "replicasets/scale", "replicasets/status", "replicationcontrollers/scale",
			"networkpolicies"),
		resourceRule(readVerbs, policyGroup, "poddisruptionbudgets", "poddisruptionbudgets/status"),
		resourceRule(readVerbs, networkingGroup, "networkpolicies", "ingresses", "ingresses/status"),
	}
}
