package daemonset

import (
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/miniapi/miniapi/pkg/controllers/internal/owner"
)

// newPod is ds's pod for node: the template, the revision labels, the
// default tolerations and a required affinity to node.
func newPod(ds *appsv1.DaemonSet, node, hash string) *corev1.Pod {
	t := ds.Spec.Template.DeepCopy()
	podLabels := map[string]string{}
	for k, v := range t.Labels {
		podLabels[k] = v
	}
	podLabels[hashLabel] = hash
	if g, ok := ds.Annotations[generationAnnotation]; ok {
		podLabels[generationLabel] = g
	}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			GenerateName: ds.Name + "-", Namespace: ds.Namespace, Labels: podLabels, Annotations: t.Annotations,
			Finalizers: t.Finalizers, OwnerReferences: []metav1.OwnerReference{owner.ControllerRef(ds, controllerKind)},
		},
		Spec: t.Spec,
	}
	pod.Spec.Affinity = nodeAffinityFor(t.Spec.Affinity, node)
	pod.Spec.Tolerations = withTolerations(&t.Spec)
	return pod
}

func isTerminal(p *corev1.Pod) bool {
	return p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed
}

func readySince(p *corev1.Pod) (bool, time.Time) {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue, c.LastTransitionTime.Time
		}
	}
	return false, time.Time{}
}

// isAvailable: Ready for at least minReadySeconds.
func isAvailable(p *corev1.Pod, minReadySeconds int32, now time.Time) bool {
	ready, since := readySince(p)
	if !ready {
		return false
	}
	return minReadySeconds == 0 || !since.Add(time.Duration(minReadySeconds)*time.Second).After(now)
}

// isUpdated: the pod runs ds's current template.
func isUpdated(p *corev1.Pod, ds *appsv1.DaemonSet, hash string) bool {
	if g, ok := p.Labels[generationLabel]; ok && g == ds.Annotations[generationAnnotation] {
		return true
	}
	return p.Labels[hashLabel] == hash
}
