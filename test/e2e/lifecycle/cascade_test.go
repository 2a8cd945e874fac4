package lifecycle

import (
	"context"
	"fmt"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/miniapi/miniapi/test/e2e/harness"
)

// running creates Deployment name with n replicas and waits until its
// ReplicaSet exists and n pods are Ready; it returns the Deployment's and
// the ReplicaSet's uids.
func running(t *testing.T, c kubernetes.Interface, name string, n int32) (deploy, rs types.UID) {
	t.Helper()
	ctx := ctxFor(t)
	d, err := c.AppsV1().Deployments("default").Create(ctx, deployment(name, n), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, 20*time.Second, func() (bool, string) {
		rss := ownedReplicaSets(t, c, name)
		ready := 0
		pods, err := c.CoreV1().Pods("default").List(ctx, metav1.ListOptions{LabelSelector: "app=" + name})
		if err != nil {
			return false, err.Error()
		}
		for i := range pods.Items {
			if podReady(&pods.Items[i]) {
				ready++
			}
		}
		if len(rss) == 1 {
			rs = rss[0].UID
		}
		return len(rss) == 1 && ready == int(n), fmt.Sprintf("%d replicasets, %d/%d pods ready", len(rss), ready, n)
	})
	return d.UID, rs
}

// ownedReplicaSets lists the ReplicaSets labelled app=name.
func ownedReplicaSets(t *testing.T, c kubernetes.Interface, name string) []appsv1.ReplicaSet {
	t.Helper()
	l, err := c.AppsV1().ReplicaSets("default").List(context.Background(), metav1.ListOptions{LabelSelector: "app=" + name})
	if err != nil {
		t.Fatal(err)
	}
	return l.Items
}

func countPods(t *testing.T, c kubernetes.Interface, name string) int {
	t.Helper()
	l, err := c.CoreV1().Pods("default").List(context.Background(), metav1.ListOptions{LabelSelector: "app=" + name})
	if err != nil {
		t.Fatal(err)
	}
	return len(l.Items)
}

func deleteDeployment(t *testing.T, c kubernetes.Interface, name string, policy metav1.DeletionPropagation) {
	t.Helper()
	if err := c.AppsV1().Deployments("default").Delete(context.Background(), name, metav1.DeleteOptions{PropagationPolicy: &policy}); err != nil {
		t.Fatalf("deleting %s with %s propagation: %v", name, policy, err)
	}
}

// Deleting a Deployment cascades as its propagationPolicy says.
func TestCascadingDeletion(t *testing.T) {
	t.Parallel()
	s := harness.Start(t, "--nodes=2", "--pod-ready-delay=500ms")
	c := s.Client()
	readyNodes(t, c, 2)

	t.Run("Background", func(t *testing.T) {
		running(t, c, "bg", 2)
		deleteDeployment(t, c, "bg", metav1.DeletePropagationBackground)
		if _, err := c.AppsV1().Deployments("default").Get(context.Background(), "bg", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("deployment still there after a background delete: %v", err)
		}
		eventually(t, 15*time.Second, func() (bool, string) {
			rs, pods := len(ownedReplicaSets(t, c, "bg")), countPods(t, c, "bg")
			return rs == 0 && pods == 0, fmt.Sprintf("%d replicasets, %d pods left", rs, pods)
		})
	})

	t.Run("Foreground", func(t *testing.T) {
		running(t, c, "fg", 2)
		deployments := c.AppsV1().Deployments("default")
		before, err := deployments.Get(context.Background(), "fg", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		w, err := deployments.Watch(context.Background(), metav1.ListOptions{FieldSelector: "metadata.name=fg", ResourceVersion: before.ResourceVersion})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Stop()
		deleteDeployment(t, c, "fg", metav1.DeletePropagationForeground)
		// Marked for deletion while its dependents go, then gone; and the
		// Deployment must outlive its ReplicaSet and pods.
		markedThenGone(t, w, 15*time.Second)
		if rs, pods := len(ownedReplicaSets(t, c, "fg")), countPods(t, c, "fg"); rs != 0 || pods != 0 {
			t.Fatalf("deployment gone while %d replicasets and %d pods remain", rs, pods)
		}
	})

	t.Run("Orphan", func(t *testing.T) {
		_, rsUID := running(t, c, "or", 2)
		deleteDeployment(t, c, "or", metav1.DeletePropagationOrphan)
		eventually(t, 15*time.Second, func() (bool, string) {
			_, err := c.AppsV1().Deployments("default").Get(context.Background(), "or", metav1.GetOptions{})
			return apierrors.IsNotFound(err), fmt.Sprintf("deployment still there (%v)", err)
		})
		rss := ownedReplicaSets(t, c, "or")
		if len(rss) != 1 || rss[0].UID != rsUID {
			t.Fatalf("replicasets after an orphan delete: %d, want the original one", len(rss))
		}
		if refs := rss[0].OwnerReferences; len(refs) != 0 {
			t.Errorf("orphaned replicaset still has ownerReferences %+v", refs)
		}
		// Orphaned, the ReplicaSet keeps its pods.
		if n := countPods(t, c, "or"); n != 2 {
			t.Errorf("%d pods after orphaning, want the 2 the replicaset keeps", n)
		}
	})
}
