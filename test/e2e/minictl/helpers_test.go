// Package minictl runs the real kubectl 1.37 and minictl side by side
// against one bin/miniapi and checks that they print the same.
package minictl

import (
	"context"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/miniapi/miniapi/test/e2e/harness"
)

// startServer starts miniapi with pods that become ready at once.
func startServer(t *testing.T) *harness.Server {
	t.Helper()
	return harness.Start(t, "--pod-ready-delay=0")
}

// mustRun runs a tool and fails the test unless it exits 0.
func mustRun(t *testing.T, s *harness.Server, tool string, args ...string) harness.Result {
	t.Helper()
	r := s.Run(tool, "", args...)
	if r.ExitCode != 0 {
		t.Fatalf("%s %v: %s", tool, args, r)
	}
	return r
}

// waitSettled waits until the deployment's controllers have caught up:
// status observed the latest generation and every replica is updated and
// available, with the ReplicaSet and pods agreeing. Comparing outputs only
// makes sense on a cluster that holds still.
func waitSettled(t *testing.T, s *harness.Server, name string, replicas int32) {
	t.Helper()
	c := s.Client()
	ctx := context.Background()
	deadline := time.Now().Add(60 * time.Second)
	var d *appsv1.Deployment
	for time.Now().Before(deadline) {
		var err error
		d, err = c.AppsV1().Deployments("default").Get(ctx, name, metav1.GetOptions{})
		if err == nil && settled(d, replicas) {
			pods, err := c.CoreV1().Pods("default").List(ctx, metav1.ListOptions{LabelSelector: "app=" + name})
			if err == nil && int32(len(pods.Items)) == replicas && allRunning(pods.Items) {
				time.Sleep(200 * time.Millisecond) // let trailing status writes land
				if d2, err := c.AppsV1().Deployments("default").Get(ctx, name, metav1.GetOptions{}); err == nil && d2.ResourceVersion == d.ResourceVersion {
					return
				}
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("deployment %s did not settle at %d replicas: %+v", name, replicas, d)
}

func settled(d *appsv1.Deployment, replicas int32) bool {
	st := d.Status
	return d.Spec.Replicas != nil && *d.Spec.Replicas == replicas &&
		st.ObservedGeneration == d.Generation && st.Replicas == replicas &&
		st.UpdatedReplicas == replicas && st.AvailableReplicas == replicas && st.ReadyReplicas == replicas
}

func allRunning(pods []corev1.Pod) bool {
	for _, p := range pods {
		if p.DeletionTimestamp != nil || p.Status.Phase != "Running" {
			return false
		}
	}
	return true
}
