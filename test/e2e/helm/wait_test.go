package helm

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// deploymentChart is a chart holding one Deployment of two replicas.
var deploymentChart = map[string]string{
	"web/Chart.yaml": `apiVersion: v2
name: web
version: 1.0.0
`,
	"web/templates/deployment.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}
spec:
  replicas: 2
  selector:
    matchLabels:
      app: {{ .Release.Name }}
  template:
    metadata:
      labels:
        app: {{ .Release.Name }}
    spec:
      containers:
      - name: web
        image: nginx:1.27
`,
}

// TestInstallWait: `helm install --wait` returns once the deployment's pods
// are ready, which the simulated kubelet makes them after --pod-ready-delay.
func TestInstallWait(t *testing.T) {
	t.Parallel()
	// A delay long enough that an install which did not wait would return
	// before any pod is ready.
	c := start(t, 2*time.Second)
	c.writeFiles(t, deploymentChart)

	res := c.ok(t, "install", "web", c.path("web"), "--wait", "--timeout", "60s")
	if !strings.Contains(res.Stdout, "STATUS: deployed\n") {
		t.Errorf("helm install --wait printed:\n%s", res)
	}
	// Helm waits on the new ReplicaSet's ready count, which the replicaset
	// controller takes from its pods' Ready conditions: those pods must be
	// ready now. (The Deployment's own status may still lag behind.)
	pods, err := c.Client().CoreV1().Pods("default").List(context.Background(), metav1.ListOptions{LabelSelector: "app=web"})
	if err != nil {
		t.Fatal(err)
	}
	ready := 0
	for _, p := range pods.Items {
		for _, cond := range p.Status.Conditions {
			if cond.Type == corev1.PodReady && cond.Status == corev1.ConditionTrue {
				ready++
			}
		}
	}
	if len(pods.Items) != 2 || ready != 2 {
		t.Errorf("when helm install --wait returned, deployment web had %d pods, %d of them ready; want 2 and 2", len(pods.Items), ready)
	}
	expectReleaseSecrets(t, c, "web", map[int]string{1: "deployed"})
}

// TestInstallWaitTimesOut: pods that never become ready within --timeout
// fail the install, and Helm records the release as failed.
func TestInstallWaitTimesOut(t *testing.T) {
	t.Parallel()
	c := start(t, time.Hour)
	c.writeFiles(t, deploymentChart)

	res := c.helm(t, "install", "web", c.path("web"), "--wait", "--timeout", "2s")
	if res.ExitCode != 1 || !strings.Contains(res.Stderr, "context deadline exceeded") {
		t.Errorf("helm install --wait with pods that are never ready: %s", res)
	}
	expectReleaseSecrets(t, c, "web", map[int]string{1: "failed"})
}
