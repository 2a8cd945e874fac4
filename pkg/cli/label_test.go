package cli

import (
	"reflect"
	"strings"
	"testing"
)

func TestSplitPairs(t *testing.T) {
	res, pairs, err := splitPairs([]string{"deploy", "web", "a=b", "c-"}, "label")
	if err != nil || !reflect.DeepEqual(res, []string{"deploy", "web"}) || !reflect.DeepEqual(pairs, []string{"a=b", "c-"}) {
		t.Fatalf("got %v %v %v", res, pairs, err)
	}
	if _, _, err := splitPairs([]string{"deploy", "a=b", "web"}, "label"); err == nil {
		t.Fatal("a resource after a label must be rejected")
	}
}

func TestParseLabelArgs(t *testing.T) {
	set, remove, err := parseLabelArgs([]string{"tier=front", "old-"})
	if err != nil || set["tier"] != "front" || !reflect.DeepEqual(remove, []string{"old"}) {
		t.Fatalf("got %v %v %v", set, remove, err)
	}
	for _, bad := range [][]string{{"a=b=c"}, {"a=b", "a-"}, {"justaword"}, {"a=not valid"}} {
		if _, _, err := parseLabelArgs(bad); err == nil {
			t.Errorf("%v: want an error", bad)
		}
	}
}

func TestApplyLabels(t *testing.T) {
	obj := mustUnstructured(t, `{"metadata":{"name":"x","labels":{"app":"web","tier":"back"}}}`)
	if _, _, err := applyLabels(obj.DeepCopy(), false, map[string]string{"tier": "front"}, nil); err == nil ||
		err.Error() != "'tier' already has a value (back), and --overwrite is false" {
		t.Fatalf("overwrite check: %v", err)
	}
	before := obj.DeepCopy()
	added, removed, err := applyLabels(obj, true, map[string]string{"tier": "front", "app": "web"}, []string{"gone", "app"})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(added, []string{"tier"}) || !reflect.DeepEqual(removed, []string{"app"}) || labelOutcome(added, removed) != "modified" {
		t.Fatalf("added %v removed %v", added, removed)
	}
	patch, err := metadataMergePatch(before, obj)
	if err != nil || string(patch) != `{"metadata":{"labels":{"app":null,"tier":"front"}}}` {
		t.Fatalf("patch %s %v", patch, err)
	}
	if labelOutcome(nil, nil) != "not labeled" || labelOutcome([]string{"a"}, nil) != "labeled" || labelOutcome(nil, []string{"a"}) != "unlabeled" {
		t.Fatal("outcome words")
	}
}

func TestAnnotations(t *testing.T) {
	set, remove, err := parseAnnotationArgs([]string{"note=a=b", "old-"})
	if err != nil || set["note"] != "a=b" || remove[0] != "old" {
		t.Fatalf("got %v %v %v", set, remove, err)
	}
	if _, _, err := parseAnnotationArgs([]string{"=x"}); err == nil || err.Error() != "invalid annotation format: =x" {
		t.Fatalf("got %v", err)
	}
	obj := mustUnstructured(t, `{"metadata":{"name":"x","annotations":{"note":"old","kubernetes.io/change-cause":"c"}}}`)
	err = applyAnnotations(obj, false, map[string]string{"note": "new", "kubernetes.io/change-cause": "d"}, nil)
	if err == nil || !strings.Contains(err.Error(), "'note' already has a value (old)") || strings.Contains(err.Error(), "change-cause") {
		t.Fatalf("got %v", err)
	}
}
