package namespace

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// leftovers is what one pass found still in a terminating namespace.
type leftovers struct {
	// counts is objects left per resource ("pods." → 2).
	counts map[string]int
	// finalizers is objects left per finalizer name.
	finalizers map[string]int
	// deleteErr is the first failed deletion, if any.
	deleteErr error
	// discoveryErr says which groups discovery could not read: their
	// objects may still be there.
	discoveryErr error
}

func (l leftovers) empty() bool { return len(l.counts) == 0 }

// conditions are the status conditions kube's namespace controller keeps
// on a terminating namespace, with its reasons and wording. Group versions
// come from miniapi's own discovery, so parsing them never fails.
func (l leftovers) conditions(now metav1.Time) []corev1.NamespaceCondition {
	c := func(t corev1.NamespaceConditionType, s corev1.ConditionStatus, reason, msg string) corev1.NamespaceCondition {
		return corev1.NamespaceCondition{Type: t, Status: s, Reason: reason, Message: msg, LastTransitionTime: now}
	}
	out := []corev1.NamespaceCondition{
		c(corev1.NamespaceDeletionDiscoveryFailure, corev1.ConditionFalse, "ResourcesDiscovered", "All resources successfully discovered"),
		c(corev1.NamespaceDeletionGVParsingFailure, corev1.ConditionFalse, "ParsedGroupVersions", "All legacy kube types successfully parsed"),
	}
	if l.discoveryErr != nil {
		out[0] = c(corev1.NamespaceDeletionDiscoveryFailure, corev1.ConditionTrue, "DiscoveryFailed", l.discoveryErr.Error())
	}
	if l.deleteErr != nil {
		out = append(out, c(corev1.NamespaceDeletionContentFailure, corev1.ConditionTrue, "ContentDeletionFailed", l.deleteErr.Error()))
	} else {
		out = append(out, c(corev1.NamespaceDeletionContentFailure, corev1.ConditionFalse, "ContentDeleted", "All content successfully deleted, may be waiting on finalization"))
	}
	if l.empty() {
		out = append(out, c(corev1.NamespaceContentRemaining, corev1.ConditionFalse, "ContentRemoved", "All content successfully removed"))
	} else {
		out = append(out, c(corev1.NamespaceContentRemaining, corev1.ConditionTrue, "SomeResourcesRemain",
			"Some resources are remaining: "+joinCounts(l.counts, "%s has %d resource instances")))
	}
	if len(l.finalizers) == 0 {
		out = append(out, c(corev1.NamespaceFinalizersRemaining, corev1.ConditionFalse, "ContentHasNoFinalizers", "All content-preserving finalizers finished"))
	} else {
		out = append(out, c(corev1.NamespaceFinalizersRemaining, corev1.ConditionTrue, "SomeFinalizersRemain",
			"Some content in the namespace has finalizers remaining: "+joinCounts(l.finalizers, "%s in %d resource instances")))
	}
	return out
}

func joinCounts(m map[string]int, format string) string {
	var parts []string
	for k, n := range m {
		parts = append(parts, fmt.Sprintf(format, k, n))
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

// conditionsCurrent reports whether have already says what want says
// (ignoring times), so an unchanged pass costs no write.
func conditionsCurrent(have, want []corev1.NamespaceCondition) bool {
	if len(have) != len(want) {
		return false
	}
	for i := range want {
		h, w := have[i], want[i]
		if h.Type != w.Type || h.Status != w.Status || h.Reason != w.Reason || h.Message != w.Message {
			return false
		}
	}
	return true
}
