package controllers

import (
	"fmt"
	"testing"
	"time"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// TestProportionalScalingMidRollout scales a Deployment up while a
// rollout is under way: like kube, the extra replicas are shared between
// the old and the new ReplicaSet in proportion to their sizes, instead of
// all going to the new one.
func TestProportionalScalingMidRollout(t *testing.T) {
	_, c := start(t, "--pod-ready-delay=1500ms")
	ctx := ctxFor(t)
	d := rollingUpdate(deployment("web", "nginx:1.26", 10), intstr.FromInt32(3), intstr.FromInt32(0))
	if _, err := c.AppsV1().Deployments(ns).Create(ctx, d, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	_, oldRS := settled(t, c, "web", 10)
	setImage(t, c, "web", "nginx:1.27")
	// maxSurge 3, maxUnavailable 0: the new ReplicaSet gets 3, the old
	// one keeps 10 while the new pods take 1.5s to become ready.
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
	d.Spec.MinReadySeconds = 1
	d.Spec.RevisionHistoryLimit = ptr(int32(1))
	if _, err := c.AppsV1().Deployments(ns).Create(ctx, d, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	sawReadyNotAvailable := false
	eventually(t, 15*time.Second, "2 available replicas", func() (bool, string) {
		d, _ := c.AppsV1().Deployments(ns).Get(ctx, "web", metav1.GetOptions{})
		if d.Status.ReadyReplicas == 2 && d.Status.AvailableReplicas < 2 {
			sawReadyNotAvailable = true
		}
		return d.Status.AvailableReplicas == 2, fmt.Sprintf("%+v", d.Status)
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
