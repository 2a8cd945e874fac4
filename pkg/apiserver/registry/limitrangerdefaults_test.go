package registry

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

func resources(pairs ...string) corev1.ResourceList {
	l := corev1.ResourceList{}
	for i := 0; i+1 < len(pairs); i += 2 {
		l[corev1.ResourceName(pairs[i])] = resource.MustParse(pairs[i+1])
	}
	return l
}

// referenceLimitRange is section 20's LimitRange of
// ../shared/reference/kinds-crd-ssa-1.37.md, as stored (defaulted).
func referenceLimitRange() *corev1.LimitRange {
	lr := &corev1.LimitRange{ObjectMeta: objMeta("defaults", "lr-demo"), Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{{
		Type:    corev1.LimitTypeContainer,
		Default: resources("cpu", "500m", "memory", "256Mi"), DefaultRequest: resources("cpu", "100m"),
		Max: resources("memory", "1Gi"),
	}}}}
	limitRangeStrategy{}.PrepareForCreate(lr)
	return lr
}

func TestLimitRangeDefaultsAsReference(t *testing.T) {
	// kubectl run lr1: both requests and limits come from the LimitRange.
	pod := &corev1.Pod{ObjectMeta: objMeta("lr1", "lr-demo"), Spec: corev1.PodSpec{Containers: []corev1.Container{container("lr1", "nginx")}}}
	if !applyLimitRangeDefaults(referenceLimitRange(), pod) {
		t.Fatal("nothing set")
	}
	want := "LimitRanger plugin set: cpu, memory request for container lr1; cpu, memory limit for container lr1"
	if got := pod.Annotations[LimitRangerAnnotation]; got != want {
		t.Errorf("annotation %q\nwant %q", got, want)
	}
	r := pod.Spec.Containers[0].Resources
	for _, c := range []struct {
		list corev1.ResourceList
		name corev1.ResourceName
		want string
	}{{r.Limits, "cpu", "500m"}, {r.Limits, "memory", "256Mi"}, {r.Requests, "cpu", "100m"}, {r.Requests, "memory", "256Mi"}} {
		if q := c.list[c.name]; q.String() != c.want {
			t.Errorf("%s = %s, want %s", c.name, q.String(), c.want)
		}
	}
}

func TestLimitRangeDefaultsKeepWhatIsSet(t *testing.T) {
	pod := &corev1.Pod{ObjectMeta: objMeta("p", "ns"), Spec: corev1.PodSpec{
		InitContainers: []corev1.Container{{Name: "setup", Resources: corev1.ResourceRequirements{
			Limits: resources("cpu", "1", "memory", "64Mi"), Requests: resources("cpu", "1", "memory", "64Mi")}}},
		Containers: []corev1.Container{
			{Name: "web", Resources: corev1.ResourceRequirements{Limits: resources("memory", "2Gi"), Requests: resources("memory", "2Gi")}},
			{Name: "full", Resources: corev1.ResourceRequirements{Limits: resources("cpu", "1", "memory", "1Gi"), Requests: resources("cpu", "1", "memory", "1Gi")}},
		},
	}}
	applyLimitRangeDefaults(referenceLimitRange(), pod)
	want := "LimitRanger plugin set: cpu request for container web; cpu limit for container web"
	if got := pod.Annotations[LimitRangerAnnotation]; got != want {
		t.Errorf("annotation %q\nwant %q", got, want)
	}
	if q := pod.Spec.Containers[0].Resources.Limits["memory"]; q.String() != "2Gi" {
		t.Errorf("memory limit %s changed", q.String())
	}

	// Nothing to set: no annotation at all.
	bare := &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{container("c", "nginx")}}}
	pvcOnly := &corev1.LimitRange{Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{{Type: corev1.LimitTypePersistentVolumeClaim, Max: resources("storage", "1Gi")}}}}
	if applyLimitRangeDefaults(pvcOnly, bare) || bare.Annotations != nil || bare.Spec.Containers[0].Resources.Limits != nil {
		t.Errorf("a LimitRange without Container defaults changed the pod: %+v", bare)
	}
}

func TestLimitRangeDefaultsInitContainers(t *testing.T) {
	pod := &corev1.Pod{Spec: corev1.PodSpec{
		InitContainers: []corev1.Container{container("setup", "busybox")},
		Containers:     []corev1.Container{container("app", "nginx")},
	}}
	lr := &corev1.LimitRange{Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{{
		Type: corev1.LimitTypeContainer, Default: resources("memory", "128Mi"), DefaultRequest: resources("memory", "64Mi"),
	}}}}
	applyLimitRangeDefaults(lr, pod)
	want := "LimitRanger plugin set: memory request for container app; memory limit for container app; " +
		"memory request for init container setup; memory limit for init container setup"
	if got := pod.Annotations[LimitRangerAnnotation]; got != want {
		t.Errorf("annotation %q\nwant %q", got, want)
	}
}
