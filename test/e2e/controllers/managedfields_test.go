package controllers

import (
	"fmt"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"
)

// controllerManager is the field manager the in-process controllers write
// as (their User-Agent's product, as kube-controller-manager's on a cluster).
const controllerManager = "kube-controller-manager"

// TestCachedUpdatesKeepOtherManagersFields: the controllers cache objects
// without managedFields (their informers drop them, as
// kube-controller-manager's do) and send those cached objects back with
// Update. The server must then keep the stored managedFields, so the
// other managers' entries survive: the Deployment controller's Update of
// a ReplicaSet keeps an applier's entry on it (and so does the ReplicaSet
// controller's UpdateStatus), and its UpdateStatus of the Deployment keeps
// the creator's and the scaler's.
func TestCachedUpdatesKeepOtherManagersFields(t *testing.T) {
	_, c := start(t)
	ctx := ctxFor(t)
	d := deployment("mf", "nginx:1.26", 1)
	if _, err := c.AppsV1().Deployments(ns).Create(ctx, d, metav1.CreateOptions{FieldManager: "e2e-creator"}); err != nil {
		t.Fatal(err)
	}
	_, rs := settled(t, c, "mf", 1)

	// Another manager owns an annotation of the ReplicaSet.
	apply := appsv1ac.ReplicaSet(rs.Name, ns).WithAnnotations(map[string]string{"e2e.miniapi.io/team": "blue"})
	if _, err := c.AppsV1().ReplicaSets(ns).Apply(ctx, apply, metav1.ApplyOptions{FieldManager: "e2e-labeler", Force: true}); err != nil {
		t.Fatal(err)
	}
	// Scaling makes the Deployment controller update the ReplicaSet's
	// spec.replicas from its cache, and then the Deployment's status.
	scale := []byte(`{"spec":{"replicas":2}}`)
	if _, err := c.AppsV1().Deployments(ns).Patch(ctx, "mf", types.MergePatchType, scale, metav1.PatchOptions{FieldManager: "e2e-scaler"}); err != nil {
		t.Fatal(err)
	}
	dep, _ := settled(t, c, "mf", 2)

	got, err := c.AppsV1().ReplicaSets(ns).Get(ctx, rs.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Annotations["e2e.miniapi.io/team"] != "blue" {
		t.Errorf("the applied annotation is gone: %v", got.Annotations)
	}
	wantEntry(t, "replicaset", got.ManagedFields, "e2e-labeler", metav1.ManagedFieldsOperationApply, "", "e2e.miniapi.io/team")
	wantEntry(t, "replicaset", got.ManagedFields, controllerManager, metav1.ManagedFieldsOperationUpdate, "", `"f:replicas"`)
	// The ReplicaSet controller's UpdateStatus, also from its cache.
	wantEntry(t, "replicaset", got.ManagedFields, controllerManager, metav1.ManagedFieldsOperationUpdate, "status", `"f:availableReplicas"`)

	wantEntry(t, "deployment", dep.ManagedFields, "e2e-creator", metav1.ManagedFieldsOperationUpdate, "", `"f:template"`)
	wantEntry(t, "deployment", dep.ManagedFields, "e2e-scaler", metav1.ManagedFieldsOperationUpdate, "", `"f:replicas"`)
	wantEntry(t, "deployment", dep.ManagedFields, controllerManager, metav1.ManagedFieldsOperationUpdate, "status", `"f:availableReplicas"`)
}

// wantEntry fails unless entries has one by manager with operation and
// subresource whose fields mention field.
func wantEntry(t *testing.T, what string, entries []metav1.ManagedFieldsEntry, manager string, op metav1.ManagedFieldsOperationType, subresource, field string) {
	t.Helper()
	for _, e := range entries {
		if e.Manager != manager || e.Operation != op || e.Subresource != subresource {
			continue
		}
		if e.FieldsV1 == nil || !strings.Contains(e.FieldsV1.GetRawString(), field) {
			t.Errorf("%s: %s's %s entry (subresource %q) lacks %s: %s", what, manager, op, subresource, field, e.FieldsV1)
		}
		return
	}
	var have []string
	for _, e := range entries {
		have = append(have, fmt.Sprintf("%s/%s/%q", e.Manager, e.Operation, e.Subresource))
	}
	t.Errorf("%s: no %s entry by %s (subresource %q); entries: %v", what, op, manager, subresource, have)
}
