package registry

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestNodeCreateKeepsStatus(t *testing.T) {
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-1"}}
	n.Status.Capacity = corev1.ResourceList{corev1.ResourcePods: resource.MustParse("110")}
	n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}
	nodeStrategy{}.PrepareForCreate(n)
	if len(n.Status.Conditions) != 1 || n.Status.Allocatable.Pods().Value() != 110 {
		t.Errorf("status: %+v", n.Status)
	}
	wantErrors(t, nodeStrategy{}.Validate(n))
}

func TestNodeValidation(t *testing.T) {
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "Node_1", Namespace: "x"}}
	n.Spec.Taints = []corev1.Taint{{Key: "k", Effect: "Never"}, {Key: "a", Effect: corev1.TaintEffectNoSchedule}, {Key: "a", Effect: corev1.TaintEffectNoSchedule}}
	wantErrors(t, nodeStrategy{}.Validate(n),
		`metadata.name: Invalid value: "Node_1": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
		"metadata.namespace: Forbidden: not allowed on this type",
		`spec.taints[0].effect: Unsupported value: "Never": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"`,
		`spec.taints[2]: Duplicate value: "taints must be unique by key and effect pair"`,
	)
}

func TestNodeUpdates(t *testing.T) {
	s := nodeStrategy{}
	old := &corev1.Node{ObjectMeta: storedMeta("node-1", "")}
	old.Status.Phase = corev1.NodeRunning

	upd := old.DeepCopy()
	upd.Spec.Unschedulable = true
	upd.Status = corev1.NodeStatus{}
	s.PrepareForUpdate(upd, old)
	if upd.Status.Phase != corev1.NodeRunning || !upd.Spec.Unschedulable {
		t.Errorf("update: %+v", upd)
	}
	wantErrors(t, s.ValidateUpdate(upd, old))
	if nodes().Generation != nil {
		t.Error("nodes have no generation")
	}

	st := old.DeepCopy()
	st.Spec.Unschedulable = true
	st.Status.Phase = corev1.NodePending
	s.PrepareForStatusUpdate(st, old)
	if st.Spec.Unschedulable || st.Status.Phase != corev1.NodePending {
		t.Errorf("status update: %+v", st)
	}
	wantErrors(t, s.ValidateStatusUpdate(st, old))

	f := s.FieldSet(upd)
	if len(f) != 2 || f["metadata.name"] != "node-1" || f["spec.unschedulable"] != "true" {
		t.Errorf("FieldSet = %v", f)
	}
}
