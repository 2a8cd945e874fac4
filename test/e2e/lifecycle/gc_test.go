package lifecycle

import (
	"fmt"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/miniapi/miniapi/test/e2e/harness"
)

// Orphans made while no controller ran (as after a crash) are found when
// the garbage collector starts: it is level-triggered, not event-driven.
func TestGarbageCollectorFindsOrphansOnStart(t *testing.T) {
	t.Parallel()
	s := harness.Start(t, "--nodes=1", "--pod-ready-delay=0")
	c := s.Client()
	ctx := ctxFor(t)
	readyNodes(t, c, 1)
	if _, err := c.AppsV1().Deployments("default").Create(ctx, deployment("kept", 1), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, 15*time.Second, func() (bool, string) {
		n := countPods(t, c, "kept")
		return n == 1, fmt.Sprintf("%d pods for kept", n)
	})
	s.RestartWith("--controllers=false")
	ghost := metav1.OwnerReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "ghost", UID: types.UID("00000000-dead-beef-0000-000000000001"),
		Controller: ptr(true), BlockOwnerDeletion: ptr(true)}
	rs := &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: "ghost-rs", Labels: map[string]string{"app": "ghost"}, OwnerReferences: []metav1.OwnerReference{ghost}},
		Spec: appsv1.ReplicaSetSpec{
			Replicas: ptr(int32(0)),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "ghost"}},
			Template: deployment("ghost", 0).Spec.Template,
		},
	}
	if _, err := c.AppsV1().ReplicaSets("default").Create(ctx, rs, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	orphanPod := pod("orphan")
	orphanPod.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "gone-rs",
		UID: types.UID("00000000-dead-beef-0000-000000000002"), Controller: ptr(true), BlockOwnerDeletion: ptr(true)}}
	if _, err := c.CoreV1().Pods("default").Create(ctx, orphanPod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	s.Restart()
	eventually(t, 15*time.Second, func() (bool, string) {
		_, errRS := c.AppsV1().ReplicaSets("default").Get(ctx, "ghost-rs", metav1.GetOptions{})
		_, errPod := c.CoreV1().Pods("default").Get(ctx, "orphan", metav1.GetOptions{})
		return apierrors.IsNotFound(errRS) && apierrors.IsNotFound(errPod),
			fmt.Sprintf("replicaset: %v; pod: %v", errRS, errPod)
	})
	// What still has its owner is left alone.
	if n := countPods(t, c, "kept"); n != 1 {
		t.Errorf("%d pods for kept after the collector ran, want 1", n)
	}
	if rss := ownedReplicaSets(t, c, "kept"); len(rss) != 1 {
		t.Errorf("%d replicasets for kept, want 1", len(rss))
	}
}
