package controllers

import (
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// TestConvergesAfterControllersWereOff proves the controllers are
// level-triggered: changes made while no controller ran (pods deleted, a
// ReplicaSet resized by hand, a Deployment scaled, a new Deployment
// created) are all reconciled when the controllers start, although the
// events that announced them were never seen.
func TestConvergesAfterControllersWereOff(t *testing.T) {
	s, c := start(t)
	ctx := ctxFor(t)
	for name, n := range map[string]int32{"web": 3, "api": 2} {
		if _, err := c.AppsV1().Deployments(ns).Create(ctx, deployment(name, "nginx", n), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	_, webRS := settled(t, c, "web", 3)
	settled(t, c, "api", 2)
	s.RestartWith("--controllers=false")
	zero := int64(0)
	for _, p := range livePods(t, c, "web")[:2] {
		if err := c.CoreV1().Pods(ns).Delete(ctx, p.Name, metav1.DeleteOptions{GracePeriodSeconds: &zero}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.AppsV1().ReplicaSets(ns).Patch(ctx, webRS.Name, types.MergePatchType, []byte(`{"spec":{"replicas":7}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.AppsV1().Deployments(ns).Patch(ctx, "api", types.MergePatchType, []byte(`{"spec":{"replicas":4}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.AppsV1().Deployments(ns).Create(ctx, deployment("late", "nginx", 2), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if n := len(livePods(t, c, "late")); n != 0 {
		t.Fatalf("%d pods for late with controllers off; the flag did not stop them", n)
	}
	s.Restart() // controllers on again
	_, rs := settled(t, c, "web", 3)
	if rs.Name != webRS.Name {
		t.Errorf("web now runs %s, want %s resized back to 3", rs.Name, webRS.Name)
	}
	settled(t, c, "api", 4)
	settled(t, c, "late", 2)
}

// TestKillDuringRollout: miniapi is killed (SIGKILL) in the middle of a
// rolling update and restarted; the rollout finishes from whatever state
// was on disk.
func TestKillDuringRollout(t *testing.T) {
	s, c := start(t, "--pod-ready-delay=300ms")
	ctx := ctxFor(t)
	d := rollingUpdate(deployment("web", "nginx:1.26", 6), intstr.FromInt32(1), intstr.FromInt32(0))
	if _, err := c.AppsV1().Deployments(ns).Create(ctx, d, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	_, oldRS := settled(t, c, "web", 6)
	// New pods never become ready in this run, so the rollout stops at its
	// first step and is surely under way when the server is killed, however
	// slow the machine; the restart goes back to the 300ms delay.
	s.RestartWith("--pod-ready-delay=1h")
	setImage(t, c, "web", "nginx:1.27")
	eventually(t, 20*time.Second, "the rollout to be under way", func() (bool, string) {
		d, err := c.AppsV1().Deployments(ns).Get(ctx, "web", metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		return d.Status.UpdatedReplicas >= 1 && d.Status.UpdatedReplicas < 6, fmt.Sprintf("%+v", d.Status)
	})
	s.Kill()
	s.Restart()
	got, newRS := settled(t, c, "web", 6)
	if newRS.Name == oldRS.Name || newRS.Spec.Template.Spec.Containers[0].Image != "nginx:1.27" || revision(got) != "2" {
		t.Errorf("after the crash: active %s (%s), revision %q; want a new replicaset on nginx:1.27 at revision 2",
			newRS.Name, newRS.Spec.Template.Spec.Containers[0].Image, revision(got))
	}
	if n := len(replicaSetsOf(t, c, got)); n != 2 {
		t.Errorf("%d replicasets after the crash, want 2", n)
	}
}
