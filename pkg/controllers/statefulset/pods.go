package statefulset

import (
	"strconv"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/miniapi/miniapi/pkg/controllers/internal/owner"
)

// The labels kube's StatefulSet controller puts on its pods.
const (
	podNameLabel  = "statefulset.kubernetes.io/pod-name"
	podIndexLabel = "apps.kubernetes.io/pod-index"
	revisionLabel = appsv1.ControllerRevisionHashLabelKey
)

var setKind = appsv1.SchemeGroupVersion.WithKind("StatefulSet")

func replicasOf(s *appsv1.StatefulSet) int {
	if s.Spec.Replicas == nil {
		return 1
	}
	return int(*s.Spec.Replicas)
}

func startOf(s *appsv1.StatefulSet) int {
	if s.Spec.Ordinals == nil {
		return 0
	}
	return int(s.Spec.Ordinals.Start)
}

// partitionOf is the rolling update's partition: pods whose ordinal index
// is below it keep their revision.
func partitionOf(s *appsv1.StatefulSet) int {
	ru := s.Spec.UpdateStrategy.RollingUpdate
	if ru == nil || ru.Partition == nil {
		return 0
	}
	return int(*ru.Partition)
}

// maxUnavailableOf is how many pods of the range a rolling update may have
// down at once: rollingUpdate.maxUnavailable scaled against the replicas
// and rounded down, at least 1 (kube's getStatefulSetMaxUnavailable).
func maxUnavailableOf(s *appsv1.StatefulSet) int {
	ru := s.Spec.UpdateStrategy.RollingUpdate
	if ru == nil || ru.MaxUnavailable == nil {
		return 1
	}
	n, err := intstr.GetScaledValueFromIntOrPercent(ru.MaxUnavailable, replicasOf(s), false)
	if err != nil || n < 1 {
		return 1
	}
	return n
}

func podName(s *appsv1.StatefulSet, ordinal int) string {
	return s.Name + "-" + strconv.Itoa(ordinal)
}

// ordinalOf parses the ordinal out of a pod of s; false for a pod whose
// name does not have the form <set>-<ordinal>.
func ordinalOf(s *appsv1.StatefulSet, p *corev1.Pod) (int, bool) {
	rest, ok := strings.CutPrefix(p.Name, s.Name+"-")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(rest)
	if err != nil || n < 0 || strconv.Itoa(n) != rest {
		return 0, false
	}
	return n, true
}

// newPod builds the pod for ordinal from s's template at revision.
func newPod(s *appsv1.StatefulSet, ordinal int, revision string) *corev1.Pod {
	t := s.Spec.Template.DeepCopy()
	name := podName(s, ordinal)
	labels := map[string]string{}
	for k, v := range t.Labels {
		labels[k] = v
	}
	labels[podNameLabel] = name
	labels[podIndexLabel] = strconv.Itoa(ordinal)
	labels[revisionLabel] = revision
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, GenerateName: s.Name + "-", Namespace: s.Namespace,
			Labels: labels, Annotations: t.Annotations, Finalizers: t.Finalizers,
			OwnerReferences: []metav1.OwnerReference{owner.ControllerRef(s, setKind)},
		},
		Spec: t.Spec,
	}
	pod.Spec.Hostname = name
	if s.Spec.ServiceName != "" {
		pod.Spec.Subdomain = s.Spec.ServiceName
	}
	pod.Spec.Volumes = claimVolumes(s, ordinal, pod.Spec.Volumes)
	return pod
}

// claimVolumes puts a volume for each claim template first, named after
// the template and mounting the ordinal's claim, replacing any template
// volume of the same name (kube's updateStorage).
func claimVolumes(s *appsv1.StatefulSet, ordinal int, volumes []corev1.Volume) []corev1.Volume {
	if len(s.Spec.VolumeClaimTemplates) == 0 {
		return volumes
	}
	claimed := map[string]bool{}
	var out []corev1.Volume
	for i := range s.Spec.VolumeClaimTemplates {
		c := &s.Spec.VolumeClaimTemplates[i]
		claimed[c.Name] = true
		out = append(out, corev1.Volume{Name: c.Name, VolumeSource: corev1.VolumeSource{
			PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claimName(s, c, ordinal)},
		}})
	}
	for _, v := range volumes {
		if !claimed[v.Name] {
			out = append(out, v)
		}
	}
	return out
}

func isTerminating(p *corev1.Pod) bool { return p.DeletionTimestamp != nil }

func isFailed(p *corev1.Pod) bool {
	return p.Status.Phase == corev1.PodFailed || p.Status.Phase == corev1.PodSucceeded
}

// readySince returns whether the pod's Ready condition is True, and since when.
func readySince(p *corev1.Pod) (bool, time.Time) {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue, c.LastTransitionTime.Time
		}
	}
	return false, time.Time{}
}

// isCreated: the API server has the pod (it gives every pod a phase).
func isCreated(p *corev1.Pod) bool { return p.Status.Phase != "" }

func isRunningAndReady(p *corev1.Pod) bool {
	ready, _ := readySince(p)
	return p.Status.Phase == corev1.PodRunning && ready
}

// isHealthy: Running, Ready and not being deleted, the state OrderedReady
// waits for before it touches the next ordinal.
func isHealthy(p *corev1.Pod) bool { return isRunningAndReady(p) && !isTerminating(p) }

func isAvailable(p *corev1.Pod, minReadySeconds int32, now time.Time) bool {
	ready, since := readySince(p)
	if !ready || p.Status.Phase != corev1.PodRunning {
		return false
	}
	return minReadySeconds == 0 || !since.Add(time.Duration(minReadySeconds)*time.Second).After(now)
}
