package scheduler

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/miniapi/miniapi/pkg/controllers/node"
)

// A pod whose required node affinity names a node (as a DaemonSet's pods
// do) is bound there, not to the emptiest node.
func TestReconcileHonoursRequiredNodeAffinity(t *testing.T) {
	p := pod("a")
	p.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
			MatchFields: []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{"miniapi-node-2"}}},
		}}},
	}}
	s, client, _ := setup(t, node.Desired(1, metav1.Now()), node.Desired(2, metav1.Now()), p)
	if err := s.Reconcile(context.Background(), "default/a"); err != nil {
		t.Fatal(err)
	}
	got, _ := client.CoreV1().Pods("default").Get(context.Background(), "a", metav1.GetOptions{})
	if got.Spec.NodeName != "miniapi-node-2" {
		t.Errorf("bound to %q, want miniapi-node-2", got.Spec.NodeName)
	}
}
