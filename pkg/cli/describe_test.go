package cli

import (
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

func TestDescribeDeploymentLayout(t *testing.T) {
	replicas := int32(3)
	quarter := intstr.FromString("25%")
	created := time.Date(2026, 11, 29, 17, 29, 29, 0, time.UTC)
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", CreationTimestamp: metav1.NewTime(created),
			Labels:      map[string]string{"app": "web"},
			Annotations: map[string]string{"deployment.kubernetes.io/revision": "1", lastAppliedAnnotation: "{}"}},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDeployment{MaxUnavailable: &quarter, MaxSurge: &quarter}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: "nginx"}}},
			},
		},
		Status: appsv1.DeploymentStatus{Replicas: 3, UpdatedReplicas: 3, UnavailableReplicas: 3,
			Conditions: []appsv1.DeploymentCondition{{Type: "Available", Status: "False", Reason: "MinimumReplicasUnavailable"}}},
	}
	rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: "web-5fc9f4bf66"}, Spec: appsv1.ReplicaSetSpec{Replicas: &replicas},
		Status: appsv1.ReplicaSetStatus{Replicas: 3}}
	got, err := describeDeployment(d, nil, []*appsv1.ReplicaSet{rs}, &corev1.EventList{})
	if err != nil {
		t.Fatal(err)
	}
	// The layout kubectl 1.37 prints for this object (its describe.go).
	want := `Name:                   web
Namespace:              default
CreationTimestamp:      Sun, 29 Nov 2026 17:29:29 +0000
Labels:                 app=web
Annotations:            deployment.kubernetes.io/revision: 1
Selector:               app=web
Replicas:               3 desired | 3 updated | 3 total | 0 available | 3 unavailable
StrategyType:           RollingUpdate
MinReadySeconds:        0
RollingUpdateStrategy:  25% max unavailable, 25% max surge
Pod Template:
  Labels:  app=web
  Containers:
   nginx:
    Image:         nginx
    Port:          <none>
    Host Port:     <none>
    Environment:   <none>
    Mounts:        <none>
  Volumes:         <none>
  Node-Selectors:  <none>
  Tolerations:     <none>
Conditions:
  Type           Status  Reason
  ----           ------  ------
  Available      False   MinimumReplicasUnavailable
OldReplicaSets:  <none>
NewReplicaSet:   web-5fc9f4bf66 (3/3 replicas created)
Events:          <none>
`
	if got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestDescribeEventsSectionAlignsOnItsOwn(t *testing.T) {
	// describe ages events by the wall clock. From 10 minutes on, ages are
	// whole minutes: "30m" stays "30m" for a minute, so a slow run cannot
	// turn it into "6s" (or "5m1s") as it could a few seconds' age.
	now := metav1.NewTime(time.Now().Add(-30 * time.Minute))
	events := &corev1.EventList{Items: []corev1.Event{{
		Type: "Normal", Reason: "ScalingReplicaSet", Message: "Scaled up replica set web-1 from 0 to 3",
		Source: corev1.EventSource{Component: "deployment-controller"}, FirstTimestamp: now, LastTimestamp: now, Count: 1,
	}}}
	out := tabbed(func(w *describeWriter) {
		w.write(0, "A-rather-long-title:\tx\n")
		describeEvents(w, events)
	})
	lines := strings.Split(out, "\n")
	if lines[0] != "A-rather-long-title:  x" || lines[1] != "Events:" {
		t.Fatalf("got %q", out)
	}
	if !strings.HasPrefix(lines[2], "  Type    Reason             Age   From                   Message") {
		t.Fatalf("events header %q", lines[2])
	}
	if !strings.HasPrefix(lines[4], "  Normal  ScalingReplicaSet  30m   deployment-controller  Scaled up") {
		t.Fatalf("events row %q", lines[4])
	}
}
