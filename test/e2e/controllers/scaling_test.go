package controllers

import (
	"context"
	"fmt"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
)

// TestProportionalScalingMidRollout scales a Deployment up while a
// rollout is under way: like kube, the extra replicas are shared between
// the old and the new ReplicaSet in proportion to their sizes, instead of
// all going to the new one.
func TestProportionalScalingMidRollout(t *testing.T) {
	s, c := start(t)
	ctx := ctxFor(t)
	d := rollingUpdate(deployment("web", "nginx:1.26", 10), intstr.FromInt32(3), intstr.FromInt32(0))
	if _, err := c.AppsV1().Deployments(ns).Create(ctx, d, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	_, oldRS := settled(t, c, "web", 10)
	// From here on new pods never become ready, so the rollout holds at
	// its first step for as long as the test needs, however slow the
	// machine (a short ready delay was a window the test could miss).
	s.RestartWith("--pod-ready-delay=1h")
	setImage(t, c, "web", "nginx:1.27")
	// maxSurge 3, maxUnavailable 0: the new ReplicaSet gets 3, the old
	// one keeps 10 while the new pods are not ready.
	eventually(t, 10*time.Second, "the first rollout step (new 3, old 10)", func() (bool, string) {
		d, _ := c.AppsV1().Deployments(ns).Get(ctx, "web", metav1.GetOptions{})
		return d.Status.UpdatedReplicas == 3 && d.Status.Replicas == 13, fmt.Sprintf("%+v", d.Status)
	})
	if _, err := c.AppsV1().Deployments(ns).UpdateScale(ctx, "web", &autoscalingv1.Scale{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: ns}, Spec: autoscalingv1.ScaleSpec{Replicas: 20},
	}, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	// 20 replicas allow 20+3 (maxSurge) = 23 pods, 10 more than the 13
	// the ReplicaSets were sized for (their max-replicas annotation). Each
	// keeps its share: old round(10*23/13) = 18, new round(3*23/13) = 5.
	eventually(t, 10*time.Second, "proportional scaling", func() (bool, string) {
		old, err := c.AppsV1().ReplicaSets(ns).Get(ctx, oldRS.Name, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		return *old.Spec.Replicas > 10, fmt.Sprintf("old replicaset at %d", *old.Spec.Replicas)
	})
	old, _ := c.AppsV1().ReplicaSets(ns).Get(ctx, oldRS.Name, metav1.GetOptions{})
	if *old.Spec.Replicas != 18 || old.Annotations["deployment.kubernetes.io/desired-replicas"] != "20" {
		t.Errorf("old replicaset: %d replicas, desired-replicas %q; want 18 and 20 (kube's proportional share)",
			*old.Spec.Replicas, old.Annotations["deployment.kubernetes.io/desired-replicas"])
	}
	// (The rollout then goes on from 18+5; other tests cover converging.)
}

// TestMinReadySecondsAndHistoryLimit: pods count as available only
// minReadySeconds after they are ready; and with revisionHistoryLimit 1
// only one old ReplicaSet is kept after several rollouts.
func TestMinReadySecondsAndHistoryLimit(t *testing.T) {
	_, c := start(t)
	ctx := ctxFor(t)
	d := deployment("web", "nginx:1", 2)
	d.Spec.MinReadySeconds = 2
	d.Spec.RevisionHistoryLimit = ptr(int32(1))
	created, err := c.AppsV1().Deployments(ns).Create(ctx, d, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// A watch from the create sees every status the controller writes,
	// where polling could step over the ready-but-not-available one.
	sawReadyNotAvailable := false
	eachStatus(ctx, t, c, created, 15*time.Second, "2 available replicas", func(st appsv1.DeploymentStatus) bool {
		if st.ReadyReplicas == 2 && st.AvailableReplicas < 2 {
			sawReadyNotAvailable = true
		}
		return st.AvailableReplicas == 2
	})
	if !sawReadyNotAvailable {
		t.Error("never saw ready pods that were not yet available; minReadySeconds 1 should delay availability")
	}
	for _, img := range []string{"nginx:2", "nginx:3"} {
		patch := fmt.Sprintf(`{"spec":{"minReadySeconds":0,"template":{"spec":{"containers":[{"name":"app","image":%q}]}}}}`, img)
		if _, err := c.AppsV1().Deployments(ns).Patch(ctx, "web", types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
		settled(t, c, "web", 2)
	}
	got, _ := c.AppsV1().Deployments(ns).Get(ctx, "web", metav1.GetOptions{})
	eventually(t, 10*time.Second, "history cleanup to one old replicaset", func() (bool, string) {
		n := len(replicaSetsOf(t, c, got))
		return n == 2, fmt.Sprintf("%d replicasets", n)
	})
}

// eachStatus watches Deployment d from its resourceVersion and calls done
// with every status written to it until done returns true; it fails the
// test after timeout.
func eachStatus(ctx context.Context, t *testing.T, c kubernetes.Interface, d *appsv1.Deployment, timeout time.Duration, what string, done func(appsv1.DeploymentStatus) bool) {
	t.Helper()
	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	w, err := c.AppsV1().Deployments(d.Namespace).Watch(wctx, metav1.ListOptions{
		FieldSelector: "metadata.name=" + d.Name, ResourceVersion: d.ResourceVersion,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	last := d.Status
	for ev := range w.ResultChan() {
		if got, ok := ev.Object.(*appsv1.Deployment); ok {
			if last = got.Status; done(last) {
				return
			}
		}
	}
	t.Fatalf("no %s within %s; last status %+v", what, timeout, last)
}
