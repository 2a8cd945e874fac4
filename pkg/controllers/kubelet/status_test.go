package kubelet

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestRunningStatus(t *testing.T) {
	scheduled := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	now := metav1.NewTime(scheduled.Add(time.Minute))
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", UID: "u1"},
		Spec: corev1.PodSpec{
			NodeName:       "miniapi-node-1",
			InitContainers: []corev1.Container{{Name: "init", Image: "busybox:1.36"}},
			Containers:     []corev1.Container{{Name: "nginx", Image: "nginx"}, {Name: "side", Image: "ghcr.io/x/y:v1"}},
		},
		Status: corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{
			{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: scheduled},
		}},
	}
	st := runningStatus(pod, "10.0.0.1", "10.244.0.7", now)
	if st.Phase != corev1.PodRunning || st.HostIP != "10.0.0.1" || st.PodIP != "10.244.0.7" ||
		len(st.PodIPs) != 1 || st.PodIPs[0].IP != "10.244.0.7" || len(st.HostIPs) != 1 {
		t.Errorf("phase/addresses wrong: %+v", st)
	}
	if st.StartTime == nil || !st.StartTime.Equal(&now) {
		t.Errorf("startTime = %v, want %v", st.StartTime, now)
	}
	if st.QOSClass != corev1.PodQOSBestEffort {
		t.Errorf("qosClass = %s", st.QOSClass)
	}
	wantConds := []corev1.PodConditionType{corev1.PodReadyToStartContainers, corev1.PodInitialized, corev1.PodReady, corev1.ContainersReady, corev1.PodScheduled}
	if len(st.Conditions) != len(wantConds) {
		t.Fatalf("conditions = %+v", st.Conditions)
	}
	for i, c := range st.Conditions {
		if c.Type != wantConds[i] || c.Status != corev1.ConditionTrue {
			t.Errorf("condition %d = %s/%s, want %s/True", i, c.Type, c.Status, wantConds[i])
		}
	}
	if !st.Conditions[4].LastTransitionTime.Equal(&scheduled) || !st.Conditions[2].LastTransitionTime.Equal(&now) {
		t.Errorf("condition times: PodScheduled %v (want %v), Ready %v (want %v)",
			st.Conditions[4].LastTransitionTime, scheduled, st.Conditions[2].LastTransitionTime, now)
	}
	if len(st.ContainerStatuses) != 2 {
		t.Fatalf("containerStatuses = %+v", st.ContainerStatuses)
	}
	cs := st.ContainerStatuses[0]
	if cs.Name != "nginx" || cs.State.Running == nil || !cs.State.Running.StartedAt.Equal(&now) || !cs.Ready ||
		cs.Started == nil || !*cs.Started || cs.RestartCount != 0 {
		t.Errorf("container status = %+v", cs)
	}
	if cs.Image != "docker.io/library/nginx:latest" || !strings.HasPrefix(cs.ImageID, "docker.io/library/nginx@sha256:") {
		t.Errorf("image = %q, imageID = %q", cs.Image, cs.ImageID)
	}
	if !strings.HasPrefix(cs.ContainerID, "miniapi://") || cs.ContainerID == st.ContainerStatuses[1].ContainerID {
		t.Errorf("containerIDs = %q, %q: want distinct miniapi:// ids", cs.ContainerID, st.ContainerStatuses[1].ContainerID)
	}
	if again := runningStatus(pod, "10.0.0.1", "10.244.0.7", now); again.ContainerStatuses[0].ContainerID != cs.ContainerID {
		t.Errorf("containerID not stable across reconciles")
	}
	if len(st.InitContainerStatuses) != 1 || st.InitContainerStatuses[0].State.Terminated == nil ||
		st.InitContainerStatuses[0].State.Terminated.Reason != "Completed" {
		t.Errorf("init container status = %+v", st.InitContainerStatuses)
	}
}

func TestNormalizeImage(t *testing.T) {
	for in, want := range map[string]string{
		"nginx":                         "docker.io/library/nginx:latest",
		"nginx:1.27":                    "docker.io/library/nginx:1.27",
		"bitnami/redis":                 "docker.io/bitnami/redis:latest",
		"ghcr.io/x/y:v1":                "ghcr.io/x/y:v1",
		"localhost:5000/app":            "localhost:5000/app:latest",
		"registry.k8s.io/pause:3.10":    "registry.k8s.io/pause:3.10",
		"nginx@sha256:0123456789abcdef": "docker.io/library/nginx@sha256:0123456789abcdef",
	} {
		if got := normalizeImage(in); got != want {
			t.Errorf("normalizeImage(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestQOSClass(t *testing.T) {
	rl := func(cpu, mem string) corev1.ResourceList {
		return corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(mem)}
	}
	mk := func(r corev1.ResourceRequirements) *corev1.Pod {
		return &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Resources: r}}}}
	}
	for _, tc := range []struct {
		r    corev1.ResourceRequirements
		want corev1.PodQOSClass
	}{
		{corev1.ResourceRequirements{}, corev1.PodQOSBestEffort},
		{corev1.ResourceRequirements{Limits: rl("1", "1Gi"), Requests: rl("1", "1Gi")}, corev1.PodQOSGuaranteed},
		{corev1.ResourceRequirements{Limits: rl("1", "1Gi")}, corev1.PodQOSGuaranteed},
		{corev1.ResourceRequirements{Requests: rl("100m", "1Gi")}, corev1.PodQOSBurstable},
		{corev1.ResourceRequirements{Limits: rl("1", "1Gi"), Requests: rl("500m", "1Gi")}, corev1.PodQOSBurstable},
	} {
		if got := qosClass(mk(tc.r)); got != tc.want {
			t.Errorf("qosClass(%+v) = %s, want %s", tc.r, got, tc.want)
		}
	}
}
