package printers

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func boolp(b bool) *bool { return &b }

func basePod() *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "web-1", CreationTimestamp: created},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx"}}},
		Status:     corev1.PodStatus{Phase: corev1.PodPending},
	}
}

func running(ready bool) corev1.ContainerStatus {
	return corev1.ContainerStatus{Name: "nginx", Ready: ready, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}
}

func TestPodStatusColumn(t *testing.T) {
	always := corev1.ContainerRestartPolicyAlways
	restartedAt := metav1.NewTime(now.Add(-5 * time.Minute))
	cases := []struct {
		name   string
		mutate func(p *corev1.Pod)
		want   string // JSON of the first five cells
	}{
		{"pending", func(p *corev1.Pod) {}, `["web-1","0/1","Pending","0","2s"]`},
		{"running ready", func(p *corev1.Pod) {
			p.Status.Phase = corev1.PodRunning
			p.Status.ContainerStatuses = []corev1.ContainerStatus{running(true)}
		}, `["web-1","1/1","Running","0","2s"]`},
		{"terminating", func(p *corev1.Pod) {
			p.Status.Phase = corev1.PodRunning
			p.Status.ContainerStatuses = []corev1.ContainerStatus{running(true)}
			ts := metav1.NewTime(now)
			p.DeletionTimestamp = &ts
		}, `["web-1","1/1","Terminating","0","2s"]`},
		{"node lost", func(p *corev1.Pod) {
			ts := metav1.NewTime(now)
			p.DeletionTimestamp = &ts
			p.Status.Reason = "NodeLost"
		}, `["web-1","0/1","Unknown","0","2s"]`},
		{"waiting reason", func(p *corev1.Pod) {
			p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "nginx", State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ImagePullBackOff"}}}}
		}, `["web-1","0/1","ImagePullBackOff","0","2s"]`},
		{"crash loop with restarts", func(p *corev1.Pod) {
			p.Status.Phase = corev1.PodRunning
			p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "nginx", RestartCount: 3,
				State:                corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}},
				LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, FinishedAt: restartedAt}}}}
		}, `["web-1","0/1","CrashLoopBackOff","3 (5m ago)","2s"]`},
		{"terminated exit code", func(p *corev1.Pod) {
			p.Status.Phase = corev1.PodFailed
			p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "nginx", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 2}}}}
		}, `["web-1","0/1","ExitCode:2","0","2s"]`},
		{"terminated signal", func(p *corev1.Pod) {
			p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "nginx", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{Signal: 9}}}}
		}, `["web-1","0/1","Signal:9","0","2s"]`},
		{"completed", func(p *corev1.Pod) {
			p.Status.Phase = corev1.PodSucceeded
			p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "nginx", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{Reason: "Completed"}}}}
		}, `["web-1","0/1","Completed","0","2s"]`},
		{"completed but one running", func(p *corev1.Pod) {
			p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: "b"})
			p.Status.Phase = corev1.PodRunning
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
			p.Status.ContainerStatuses = []corev1.ContainerStatus{
				{Name: "nginx", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{Reason: "Completed"}}}, running(true)}
		}, `["web-1","1/2","Running","0","2s"]`},
		{"status reason", func(p *corev1.Pod) {
			p.Status.Phase = corev1.PodFailed
			p.Status.Reason = "Evicted"
		}, `["web-1","0/1","Evicted","0","2s"]`},
		{"scheduling gated", func(p *corev1.Pod) {
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: "SchedulingGated"}}
		}, `["web-1","0/1","SchedulingGated","0","2s"]`},
		{"init waiting", func(p *corev1.Pod) {
			p.Spec.InitContainers = []corev1.Container{{Name: "a"}, {Name: "b"}}
			p.Status.InitContainerStatuses = []corev1.ContainerStatus{
				{Name: "a", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 0}}},
				{Name: "b", State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}}
		}, `["web-1","0/1","Init:1/2","0","2s"]`},
		{"init failed", func(p *corev1.Pod) {
			p.Spec.InitContainers = []corev1.Container{{Name: "a"}}
			p.Status.InitContainerStatuses = []corev1.ContainerStatus{{Name: "a", RestartCount: 2, State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error"}}}}
		}, `["web-1","0/1","Init:Error","2","2s"]`},
		{"init image pull", func(p *corev1.Pod) {
			p.Spec.InitContainers = []corev1.Container{{Name: "a"}}
			p.Status.InitContainerStatuses = []corev1.ContainerStatus{{Name: "a", State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ErrImagePull"}}}}
		}, `["web-1","0/1","Init:ErrImagePull","0","2s"]`},
		{"sidecar counts", func(p *corev1.Pod) {
			p.Spec.InitContainers = []corev1.Container{{Name: "side", RestartPolicy: &always}}
			p.Status.Phase = corev1.PodRunning
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodInitialized, Status: corev1.ConditionTrue}}
			p.Status.InitContainerStatuses = []corev1.ContainerStatus{{Name: "side", Ready: true, Started: boolp(true), RestartCount: 1,
				State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}}
			p.Status.ContainerStatuses = []corev1.ContainerStatus{running(true)}
		}, `["web-1","2/2","Running","1","2s"]`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := basePod()
			tc.mutate(p)
			row := mustTable(t, p).Rows[0]
			row.Cells = row.Cells[:5]
			if got := cellsJSON(t, row); got != tc.want {
				t.Errorf("cells = %s\nwant    %s", got, tc.want)
			}
		})
	}
}

func TestPodWideColumns(t *testing.T) {
	p := basePod()
	table := mustTable(t, p)
	if got, want := cellsJSON(t, table.Rows[0]), `["web-1","0/1","Pending","0","2s","\u003cnone\u003e","\u003cnone\u003e","\u003cnone\u003e","\u003cnone\u003e"]`; got != want {
		t.Errorf("cells = %s\nwant    %s", got, want)
	}
	p.Spec.NodeName = "node-2"
	p.Status.PodIPs = []corev1.PodIP{{IP: "10.244.0.7"}, {IP: "fd00::7"}}
	p.Status.NominatedNodeName = "node-3"
	p.Spec.ReadinessGates = []corev1.PodReadinessGate{{ConditionType: "a"}, {ConditionType: "b"}}
	p.Status.Conditions = []corev1.PodCondition{{Type: "a", Status: corev1.ConditionTrue}, {Type: "b", Status: corev1.ConditionFalse}}
	p.Status.Phase = corev1.PodSucceeded
	table = mustTable(t, p)
	if got, want := cellsJSON(t, table.Rows[0])[len(`["web-1","0/1","Succeeded","0","2s",`):], `"10.244.0.7","node-2","node-3","1/2"]`; got != want {
		t.Errorf("wide cells = %s, want %s", got, want)
	}
	if len(table.Rows[0].Conditions) != 1 || table.Rows[0].Conditions[0].Reason != "Succeeded" {
		t.Errorf("row conditions = %+v", table.Rows[0].Conditions)
	}
	wantHeader := []string{"Name/string/0/name", "Ready/string/0", "Status/string/0", "Restarts/string/0", "Age/string/0",
		"IP/string/1", "Node/string/1", "Nominated Node/string/1", "Readiness Gates/string/1"}
	for i, h := range header(table.ColumnDefinitions) {
		if h != wantHeader[i] {
			t.Errorf("column %d = %s, want %s", i, h, wantHeader[i])
		}
	}
}
