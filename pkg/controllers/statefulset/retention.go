package statefulset

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The claims' owner references carry the retention policy, as in kube:
// the garbage collector deletes a claim once its controller is gone.
//
//	whenDeleted=Delete: the set controls the claims of pods in range;
//	whenScaled=Delete: a pod beyond the range controls its claims.
//
// Retain (the default) for both means neither reference.

var podKind = corev1.SchemeGroupVersion.WithKind("Pod")

const (
	retain = appsv1.RetainPersistentVolumeClaimRetentionPolicyType
	del    = appsv1.DeletePersistentVolumeClaimRetentionPolicyType
)

// retentionOf is s's policy, Retain for what it leaves unset.
func retentionOf(s *appsv1.StatefulSet) appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy {
	p := appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{WhenDeleted: retain, WhenScaled: retain}
	if q := s.Spec.PersistentVolumeClaimRetentionPolicy; q != nil {
		if q.WhenDeleted != "" {
			p.WhenDeleted = q.WhenDeleted
		}
		if q.WhenScaled != "" {
			p.WhenScaled = q.WhenScaled
		}
	}
	return p
}

// inRange: pod's ordinal is one s keeps.
func inRange(s *appsv1.StatefulSet, pod *corev1.Pod) bool {
	n, ok := ordinalOf(s, pod)
	return ok && n >= startOf(s) && n < startOf(s)+replicasOf(s)
}

// wantedOwners says which of s and pod should control the claim.
func wantedOwners(s *appsv1.StatefulSet, pod *corev1.Pod) (bySet, byPod bool) {
	p := retentionOf(s)
	scaledDown := !inRange(s, pod)
	bySet = p.WhenDeleted == del && (p.WhenScaled == retain || !scaledDown)
	byPod = p.WhenScaled == del && scaledDown
	return bySet, byPod
}

func matchesRef(ref *metav1.OwnerReference, obj metav1.Object, gvk schema.GroupVersionKind) bool {
	return ref.APIVersion == gvk.GroupVersion().String() && ref.Kind == gvk.Kind && ref.Name == obj.GetName()
}

func hasRef(claim *corev1.PersistentVolumeClaim, obj metav1.Object) bool {
	for _, r := range claim.OwnerReferences {
		if r.UID == obj.GetUID() {
			return true
		}
	}
	return false
}

// hasStaleRef: the claim names obj's kind and name with another UID, a
// reference left by an earlier object of that name.
func hasStaleRef(claim *corev1.PersistentVolumeClaim, obj metav1.Object, gvk schema.GroupVersionKind) bool {
	for i := range claim.OwnerReferences {
		if matchesRef(&claim.OwnerReferences[i], obj, gvk) {
			return claim.OwnerReferences[i].UID != obj.GetUID()
		}
	}
	return false
}

// otherController: under a Delete policy, someone other than s and pod
// controls the claim (or an earlier s or pod of the same name does); the
// claim is then left to them.
func otherController(claim *corev1.PersistentVolumeClaim, s *appsv1.StatefulSet, pod *corev1.Pod) bool {
	p := retentionOf(s)
	if p.WhenDeleted == retain && p.WhenScaled == retain {
		return false
	}
	for i := range claim.OwnerReferences {
		r := &claim.OwnerReferences[i]
		switch {
		case matchesRef(r, s, setKind):
			if r.UID != s.UID {
				return true
			}
		case matchesRef(r, pod, podKind):
			if r.UID != pod.UID {
				return true
			}
		case r.Controller != nil && *r.Controller:
			return true
		}
	}
	return false
}

// claimRefsUpToDate: the claim's references already say what the policy
// asks, or the claim is someone else's and must not be touched.
func claimRefsUpToDate(claim *corev1.PersistentVolumeClaim, s *appsv1.StatefulSet, pod *corev1.Pod) bool {
	if hasStaleRef(claim, s, setKind) || hasStaleRef(claim, pod, podKind) {
		return true
	}
	if otherController(claim, s, pod) {
		return !hasRef(claim, s) && !hasRef(claim, pod)
	}
	for _, r := range claim.OwnerReferences {
		if (r.UID == s.UID || r.UID == pod.UID) && (r.Controller == nil || !*r.Controller) {
			return false // ours, but not as controller
		}
	}
	bySet, byPod := wantedOwners(s, pod)
	return hasRef(claim, s) == bySet && hasRef(claim, pod) == byPod
}

// setRetentionRefs rewrites the claim's references to s and pod as the
// policy asks, keeping everyone else's.
func setRetentionRefs(claim *corev1.PersistentVolumeClaim, s *appsv1.StatefulSet, pod *corev1.Pod) {
	other := otherController(claim, s, pod)
	refs := []metav1.OwnerReference{}
	for _, r := range claim.OwnerReferences {
		if !matchesRef(&r, s, setKind) && !matchesRef(&r, pod, podKind) {
			refs = append(refs, r)
		}
	}
	if !other {
		bySet, byPod := wantedOwners(s, pod)
		if bySet {
			refs = append(refs, *metav1.NewControllerRef(s, setKind))
		}
		if byPod && pod.UID != "" {
			refs = append(refs, *metav1.NewControllerRef(pod, podKind))
		}
	}
	if len(refs) == 0 {
		refs = nil
	}
	claim.OwnerReferences = refs
}
