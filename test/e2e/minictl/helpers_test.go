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

// waitSettled waits until the deployment's controllers have caught up:
// status observed the latest generation and every replica is updated and
// available, with the ReplicaSet and pods agreeing, and each pod carries
// the last writes made to it (the scheduler's PodScheduled, the kubelet's
// Ready). Comparing outputs only makes sense on a cluster that holds still.
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
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("deployment %s did not settle at %d replicas: %+v", name, replicas, d)
}

func settled(d *appsv1.Deployment, replicas int32) bool {
	st := d.Status
	if d.Spec.ProgressDeadlineSeconds != nil && !hasCondition(st.Conditions, appsv1.DeploymentProgressing, "NewReplicaSetAvailable") {
		return false // the status write that says "complete" is still to come
	}
	return d.Spec.Replicas != nil && *d.Spec.Replicas == replicas &&
		st.ObservedGeneration == d.Generation && st.Replicas == replicas &&
		st.UpdatedReplicas == replicas && st.AvailableReplicas == replicas && st.ReadyReplicas == replicas
}

func hasCondition(conds []appsv1.DeploymentCondition, typ appsv1.DeploymentConditionType, reason string) bool {
	for _, c := range conds {
		if c.Type == typ && c.Reason == reason {
			return true
		}
	}
	return false
}

// podTrue: pod has condition typ with status True.
func podTrue(p corev1.Pod, typ corev1.PodConditionType) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == typ {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// allRunning: every pod is Running, Ready and marked scheduled, and not
// being deleted.
func allRunning(pods []corev1.Pod) bool {
	for _, p := range pods {
		if p.DeletionTimestamp != nil || p.Status.Phase != "Running" || !podTrue(p, corev1.PodScheduled) || !podTrue(p, corev1.PodReady) {
			return false
		}
	}
	return true
}

// waitQuiet waits until no Deployment or ReplicaSet in "default" has
// changed for a second. A settled Deployment can still get one more status
// write (a condition's lastUpdateTime); once the objects hold still, every
// watcher has been sent every event it will ever print, so two watches can
// be compared without racing that last write.
func waitQuiet(t *testing.T, s *harness.Server) {
	t.Helper()
	c := s.Client()
	ctx := context.Background()
	versions := func() string {
		sig := ""
		if ds, err := c.AppsV1().Deployments("default").List(ctx, metav1.ListOptions{}); err == nil {
			for _, d := range ds.Items {
				sig += d.Name + "=" + d.ResourceVersion + " "
			}
		}
		if rss, err := c.AppsV1().ReplicaSets("default").List(ctx, metav1.ListOptions{}); err == nil {
			for _, rs := range rss.Items {
				sig += rs.Name + "=" + rs.ResourceVersion + " "
			}
		}
		return sig
	}
	deadline := time.Now().Add(30 * time.Second)
	last, since := versions(), time.Now()
	for time.Since(since) < time.Second {
		if time.Now().After(deadline) {
			t.Fatalf("deployments and replica sets kept changing for 30s: %s", last)
		}
		time.Sleep(100 * time.Millisecond)
		if now := versions(); now != last {
			last, since = now, time.Now()
		}
	}
}
