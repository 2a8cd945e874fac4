package scheduler

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestPickNodeSpreadsAndBreaksTiesByName(t *testing.T) {
	for _, tc := range []struct {
		name   string
		nodes  []string
		counts map[string]int
		want   string
	}{
		{"no nodes", nil, nil, ""},
		{"all empty: first by name", []string{"n-3", "n-1", "n-2"}, nil, "n-1"},
		{"fewest pods wins", []string{"n-1", "n-2", "n-3"}, map[string]int{"n-1": 2, "n-2": 1, "n-3": 2}, "n-2"},
		{"tie among the fewest", []string{"n-3", "n-2", "n-1"}, map[string]int{"n-1": 5, "n-2": 1, "n-3": 1}, "n-2"},
	} {
		if got := pickNode(tc.nodes, tc.counts); got != tc.want {
			t.Errorf("%s: pickNode = %q, want %q", tc.name, got, tc.want)
		}
	}
}

// Placing pods one by one with pickNode and counting each placement spreads
// them evenly.
func TestPickNodeSpreadEvenly(t *testing.T) {
	nodes := []string{"a", "b", "c"}
	counts := map[string]int{}
	for range 10 {
		counts[pickNode(nodes, counts)]++
	}
	if counts["a"] != 4 || counts["b"] != 3 || counts["c"] != 3 {
		t.Errorf("10 pods on 3 nodes spread as %v, want a:4 b:3 c:3", counts)
	}
}

func TestAssumedForgetsPodsGoneFromTheCache(t *testing.T) {
	cache := map[string]*corev1.Pod{
		"p1": {ObjectMeta: metav1.ObjectMeta{Name: "p1", UID: "u1"}},                                      // not yet bound in cache
		"p3": {ObjectMeta: metav1.ObjectMeta{Name: "p3", UID: "other"}},                                   // recreated
		"p5": {ObjectMeta: metav1.ObjectMeta{Name: "p5", UID: "u5"}, Spec: corev1.PodSpec{NodeName: "c"}}, // bound, the handler not there yet
	}
	get := func(_, name string) (*corev1.Pod, bool) { p, ok := cache[name]; return p, ok }
	var a assumed
	a.add("u1", assumption{name: "p1", node: "a"})
	a.add("u3", assumption{name: "p3", node: "b"})
	a.add("u4", assumption{name: "gone", node: "b"})
	a.add("u5", assumption{name: "p5", node: "c"})
	got := a.pending(get)
	if len(got) != 2 || got["a"] != 1 || got["c"] != 1 {
		t.Errorf("pending = %v, want map[a:1 c:1]", got)
	}
	if len(a.byUID) != 2 {
		t.Errorf("assumed kept %d entries, want 2 (p1, p5)", len(a.byUID))
	}
}

// TestPlacementsFollowThePods: a pod counts on its node while bound and
// not finished, moves with its node, and stops counting when it finishes or
// goes.
func TestPlacementsFollowThePods(t *testing.T) {
	var p placements
	p.set("u1", "a")
	p.set("u2", "a")
	p.set("u3", "b")
	p.set("u1", "a") // an update that changes nothing counts nothing
	if p.perNode["a"] != 2 || p.perNode["b"] != 1 {
		t.Fatalf("perNode = %v, want map[a:2 b:1]", p.perNode)
	}
	p.set("u2", "b")
	finished := &corev1.Pod{Spec: corev1.PodSpec{NodeName: "b"}, Status: corev1.PodStatus{Phase: corev1.PodSucceeded}}
	p.set("u3", placeOf(finished))
	p.set("u9", "") // never counted
	if len(p.perNode) != 2 || p.perNode["a"] != 1 || p.perNode["b"] != 1 || len(p.byUID) != 2 {
		t.Errorf("perNode = %v (%d pods), want map[a:1 b:1] (2 pods)", p.perNode, len(p.byUID))
	}
	p.set("u1", "")
	p.set("u2", "")
	if len(p.perNode) != 0 || len(p.byUID) != 0 {
		t.Errorf("perNode = %v, byUID = %v after every pod went", p.perNode, p.byUID)
	}
}
