package registry

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/miniapi/miniapi/pkg/storage/boltstore"
)

// TestOneGlobalDefault stores classes under the resource's keys, as the
// handlers do, and checks the hooks refuse a second global default with
// kube's 403, on create and on update, while the default itself may be
// rewritten.
func TestOneGlobalDefault(t *testing.T) {
	store, err := boltstore.Open(filepath.Join(t.TempDir(), "db"), boltstore.Options{HistorySize: 100})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	res := priorityClasses(Options{Store: store})
	hooks := res.Hooks
	if hooks == nil {
		t.Fatal("no hooks with a store")
	}
	if priorityClasses(Options{}).Hooks != nil {
		t.Error("hooks without a store")
	}
	ctx := context.Background()
	put := func(pc *schedulingv1.PriorityClass) {
		b, err := json.Marshal(pc)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := store.Create(ctx, res.KeyPrefix()+pc.Name, b); err != nil {
			t.Fatal(err)
		}
	}
	def2 := &schedulingv1.PriorityClass{ObjectMeta: objMeta("def2", ""), Value: 10, GlobalDefault: true}
	put(&schedulingv1.PriorityClass{ObjectMeta: objMeta("high", ""), Value: 100000})

	if _, err := hooks.BeginCreate(ctx, def2, false); err != nil {
		t.Fatalf("the first default: %v", err)
	}
	put(def2)
	def3 := &schedulingv1.PriorityClass{ObjectMeta: objMeta("def3", ""), Value: 20, GlobalDefault: true}
	_, err = hooks.BeginCreate(ctx, def3, false)
	if !apierrors.IsForbidden(err) || err.Error() != `priorityclasses.scheduling.k8s.io "def3" is forbidden: PriorityClass def2 is already marked as default. Only one default can exist` {
		t.Errorf("second default: %v", err)
	}
	if _, err := hooks.BeginCreate(ctx, &schedulingv1.PriorityClass{ObjectMeta: objMeta("low", ""), Value: 1}, false); err != nil {
		t.Errorf("a class that is not a default: %v", err)
	}
	if _, err := hooks.BeginUpdate(ctx, def2, def2, false); err != nil {
		t.Errorf("rewriting the default: %v", err)
	}
	high := &schedulingv1.PriorityClass{ObjectMeta: objMeta("high", ""), Value: 100000, GlobalDefault: true}
	if _, err := hooks.BeginUpdate(ctx, high, high, false); !apierrors.IsForbidden(err) {
		t.Errorf("making a second default by update: %v", err)
	}
}
