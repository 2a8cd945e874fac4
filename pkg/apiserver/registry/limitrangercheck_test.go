package registry

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
)

// violationMessage renders errs as kube's Forbidden message does.
func violationMessage(errs []error) string {
	if len(errs) == 0 {
		return ""
	}
	return utilerrors.NewAggregate(errs).Error()
}

func podWith(requests, limits corev1.ResourceList) *corev1.Pod {
	return &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{Requests: requests, Limits: limits}}}}}
}

func containerItem(item corev1.LimitRangeItem) *corev1.LimitRange {
	item.Type = corev1.LimitTypeContainer
	return &corev1.LimitRange{Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{item}}}
}

func TestContainerLimitMessages(t *testing.T) {
	for _, tc := range []struct {
		name             string
		item             corev1.LimitRangeItem
		requests, limits corev1.ResourceList
		want             string
	}{
		{"within", corev1.LimitRangeItem{Min: resources("cpu", "100m"), Max: resources("cpu", "1")}, resources("cpu", "100m"), resources("cpu", "1"), ""},
		// The reference's kubectl run lr2.
		{"max limit", corev1.LimitRangeItem{Max: resources("memory", "1Gi")}, resources("memory", "2Gi"), resources("memory", "2Gi"),
			"maximum memory usage per Container is 1Gi, but limit is 2Gi"},
		{"max request", corev1.LimitRangeItem{Max: resources("cpu", "1")}, resources("cpu", "2"), resources("cpu", "1"),
			"maximum cpu usage per Container is 1, but request is 2"},
		{"max no limit", corev1.LimitRangeItem{Max: resources("cpu", "1")}, resources("cpu", "1"), nil,
			"maximum cpu usage per Container is 1.  No limit is specified"},
		{"min request", corev1.LimitRangeItem{Min: resources("cpu", "100m")}, resources("cpu", "50m"), nil,
			"minimum cpu usage per Container is 100m, but request is 50m"},
		{"min limit", corev1.LimitRangeItem{Min: resources("cpu", "100m")}, resources("cpu", "100m"), resources("cpu", "50m"),
			"minimum cpu usage per Container is 100m, but limit is 50m"},
		{"min no request", corev1.LimitRangeItem{Min: resources("memory", "64Mi")}, nil, nil,
			"minimum memory usage per Container is 64Mi.  No request is specified"},
		{"ratio", corev1.LimitRangeItem{MaxLimitRequestRatio: resources("cpu", "2")}, resources("cpu", "250m"), resources("cpu", "1"),
			"cpu max limit to request ratio per Container is 2, but provided ratio is 4.000000"},
		{"ratio thirds", corev1.LimitRangeItem{MaxLimitRequestRatio: resources("memory", "1")}, resources("memory", "3Mi"), resources("memory", "10Mi"),
			"memory max limit to request ratio per Container is 1, but provided ratio is 3.333333"},
		{"ratio within", corev1.LimitRangeItem{MaxLimitRequestRatio: resources("cpu", "4")}, resources("cpu", "250m"), resources("cpu", "1"), ""},
		{"ratio no request", corev1.LimitRangeItem{MaxLimitRequestRatio: resources("cpu", "2")}, resources("cpu", "0"), resources("cpu", "1"),
			"cpu max limit to request ratio per Container is 2, but no request is specified or request is 0"},
		{"ratio no limit", corev1.LimitRangeItem{MaxLimitRequestRatio: resources("cpu", "2")}, resources("cpu", "1"), nil,
			"cpu max limit to request ratio per Container is 2, but no limit is specified or limit is 0"},
		// Several: kube's aggregate, bracketed; min before max, names sorted.
		{"several", corev1.LimitRangeItem{Min: resources("cpu", "100m", "memory", "64Mi"), Max: resources("memory", "1Gi")},
			resources("cpu", "50m", "memory", "2Gi"), resources("memory", "2Gi"),
			"[minimum cpu usage per Container is 100m, but request is 50m, maximum memory usage per Container is 1Gi, but limit is 2Gi]"},
	} {
		got := violationMessage(podLimitViolations(containerItem(tc.item), podWith(tc.requests, tc.limits)))
		if got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
	}
}

func TestPodLimitSumsContainers(t *testing.T) {
	pod := &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{
		{Name: "a", Resources: corev1.ResourceRequirements{Requests: resources("memory", "600Mi"), Limits: resources("memory", "600Mi")}},
		{Name: "b", Resources: corev1.ResourceRequirements{Requests: resources("memory", "600Mi"), Limits: resources("memory", "600Mi")}},
	}}}
	lr := &corev1.LimitRange{Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{{Type: corev1.LimitTypePod, Max: resources("memory", "1Gi")}}}}
	want := "maximum memory usage per Pod is 1Gi, but limit is 1200Mi"
	if got := violationMessage(podLimitViolations(lr, pod)); got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

func TestClaimLimitMessages(t *testing.T) {
	lr := &corev1.LimitRange{Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{{
		Type: corev1.LimitTypePersistentVolumeClaim, Min: resources("storage", "1Gi"), Max: resources("storage", "10Gi"),
	}}}}
	claim := func(size string) *corev1.PersistentVolumeClaim {
		return &corev1.PersistentVolumeClaim{Spec: corev1.PersistentVolumeClaimSpec{Resources: corev1.VolumeResourceRequirements{
			Requests: resources("storage", size), Limits: resources("storage", "100Gi")}}}
	}
	for size, want := range map[string]string{
		"5Gi":   "",
		"500Mi": "minimum storage usage per PersistentVolumeClaim is 1Gi, but request is 500Mi",
		"20Gi":  "maximum storage usage per PersistentVolumeClaim is 10Gi, but request is 20Gi",
	} {
		if got := violationMessage(pvcLimitViolations(lr, claim(size))); got != want {
			t.Errorf("%s: got %q\nwant %q", size, got, want)
		}
	}
	// Container items say nothing about claims.
	if errs := pvcLimitViolations(containerItem(corev1.LimitRangeItem{Max: resources("storage", "1")}), claim("5Gi")); len(errs) != 0 {
		t.Errorf("container item checked a claim: %v", errs)
	}
}
