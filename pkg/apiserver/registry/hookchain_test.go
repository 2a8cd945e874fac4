package registry

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
)

// recordingHooks logs what the chain asks of it.
type recordingHooks struct {
	noHooks
	name   string
	log    *[]string
	refuse error
}

func (h recordingHooks) BeginCreate(ctx context.Context, obj runtime.Object, dryRun bool) (FinishFunc, error) {
	*h.log = append(*h.log, "begin "+h.name)
	if h.refuse != nil {
		return nil, h.refuse
	}
	return func(_ context.Context, ok bool) {
		*h.log = append(*h.log, map[bool]string{true: "stored ", false: "undo "}[ok]+h.name)
	}, nil
}

func (h recordingHooks) ValidateCreate(context.Context, runtime.Object) error {
	*h.log = append(*h.log, "validate "+h.name)
	return h.refuse
}

func TestChainHooks(t *testing.T) {
	ctx := context.Background()
	if chain(nil, nil) != nil {
		t.Error("chain of nothing is not nil")
	}
	var log []string
	one := recordingHooks{name: "one", log: &log}
	if chain(nil, one) != WriteHooks(one) {
		t.Error("chain of one is not that one")
	}

	c := chain(one, recordingHooks{name: "two", log: &log})
	finish, err := c.BeginCreate(ctx, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := ValidateCreate(ctx, c, nil); err != nil {
		t.Fatal(err)
	}
	finish(ctx, true)
	want := []string{"begin one", "begin two", "validate one", "validate two", "stored two", "stored one"}
	if !reflect.DeepEqual(log, want) {
		t.Errorf("log %v\nwant %v", log, want)
	}

	// A refusal stops the chain and undoes what began.
	log = nil
	no := errors.New("no")
	c = chain(one, recordingHooks{name: "two", log: &log, refuse: no}, recordingHooks{name: "three", log: &log})
	if _, err := c.BeginCreate(ctx, nil, false); err != no {
		t.Errorf("err %v", err)
	}
	if err := ValidateCreate(ctx, c, nil); err != no {
		t.Errorf("validate err %v", err)
	}
	want = []string{"begin one", "begin two", "undo one", "validate one", "validate two"}
	if !reflect.DeepEqual(log, want) {
		t.Errorf("log %v\nwant %v", log, want)
	}
}

// repairingHooks is recordingHooks that also repairs.
type repairingHooks struct{ recordingHooks }

func (h repairingHooks) Repair(context.Context, []runtime.Object) error {
	*h.log = append(*h.log, "repair "+h.name)
	return nil
}

// Only a chain holding a Repairer is one, so kinds whose hooks keep
// nothing outside their objects are not decoded at start.
func TestChainRepairsOnlyWithARepairer(t *testing.T) {
	var log []string
	plain := chain(recordingHooks{name: "a", log: &log}, recordingHooks{name: "b", log: &log})
	if _, ok := plain.(Repairer); ok {
		t.Error("a chain without a Repairer is one")
	}
	withRepair := chain(recordingHooks{name: "a", log: &log}, repairingHooks{recordingHooks{name: "b", log: &log}})
	r, ok := withRepair.(Repairer)
	if !ok {
		t.Fatal("a chain with a Repairer is not one")
	}
	if err := r.Repair(context.Background(), nil); err != nil || !reflect.DeepEqual(log, []string{"repair b"}) {
		t.Errorf("repair: %v, log %v", err, log)
	}
	if _, ok := pods(Options{Store: openTestStore(t)}).Hooks.(Repairer); ok {
		t.Error("pod hooks are a Repairer: every pod would be decoded at start")
	}
}
