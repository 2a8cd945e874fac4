package kubelet

import (
	"encoding/json"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
)

// The kubelet's patch, applied after the scheduler's PodScheduled write it
// did not see, keeps that condition's time, sets the others in the
// kubelet's order, and names the pod's uid.
func TestStatusPatchMergesWithAConcurrentSchedulerWrite(t *testing.T) {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", UID: "u1"},
		Spec: corev1.PodSpec{NodeName: "n", Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}
	now := metav1.Now()
	patch, err := statusPatch(pod.UID, pod.Status, runningStatus(pod, "10.0.0.1", "10.244.0.5", now))
	if err != nil {
		t.Fatal(err)
	}
	// Meanwhile the scheduler set PodScheduled on the server's copy.
	scheduledAt := metav1.NewTime(now.Add(-1e9))
	onServer := pod.DeepCopy()
	onServer.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: scheduledAt}}
	cur, _ := json.Marshal(onServer)
	merged, err := strategicpatch.StrategicMergePatch(cur, patch, corev1.Pod{})
	if err != nil {
		t.Fatal(err)
	}
	var got corev1.Pod
	if err := json.Unmarshal(merged, &got); err != nil {
		t.Fatal(err)
	}
	if got.UID != "u1" || got.Status.Phase != corev1.PodRunning || got.Status.PodIP != "10.244.0.5" {
		t.Errorf("uid %q phase %q podIP %q; want u1 Running 10.244.0.5", got.UID, got.Status.Phase, got.Status.PodIP)
	}
	var types []corev1.PodConditionType
	for _, c := range got.Status.Conditions {
		types = append(types, c.Type)
		if c.Status != corev1.ConditionTrue {
			t.Errorf("condition %s is %s, want True", c.Type, c.Status)
		}
	}
	want := []corev1.PodConditionType{corev1.PodReadyToStartContainers, corev1.PodInitialized, corev1.PodReady, corev1.ContainersReady, corev1.PodScheduled}
	if len(types) != len(want) {
		t.Fatalf("conditions %v, want %v", types, want)
	}
	for i := range want {
		if types[i] != want[i] {
			t.Fatalf("conditions %v, want %v", types, want)
		}
	}
	var patchDoc map[string]any
	if err := json.Unmarshal(patch, &patchDoc); err != nil {
		t.Fatal(err)
	}
	if m, _ := patchDoc["metadata"].(map[string]any); m["uid"] != "u1" {
		t.Errorf("patch %s carries no uid precondition", patch)
	}
}
