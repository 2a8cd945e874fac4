package scheduler

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
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

func TestAssumedForgetsWhatTheCacheShows(t *testing.T) {
	cache := map[string]*corev1.Pod{
		"p1": {ObjectMeta: metav1.ObjectMeta{Name: "p1", UID: "u1"}},                                      // not yet bound in cache
		"p2": {ObjectMeta: metav1.ObjectMeta{Name: "p2", UID: "u2"}, Spec: corev1.PodSpec{NodeName: "b"}}, // cache caught up
		"p3": {ObjectMeta: metav1.ObjectMeta{Name: "p3", UID: "other"}},                                   // recreated
		"p5": {ObjectMeta: metav1.ObjectMeta{Name: "p5", UID: "u5"}, Spec: corev1.PodSpec{NodeName: "c"}}, // bound after the index was read
	}
	get := func(_, name string) (*corev1.Pod, bool) { p, ok := cache[name]; return p, ok }
	var a assumed
	a.add("u1", assumption{name: "p1", node: "a"})
	a.add("u2", assumption{name: "p2", node: "b"})
	a.add("u3", assumption{name: "p3", node: "b"})
	a.add("u4", assumption{name: "gone", node: "b"})
	a.add("u5", assumption{name: "p5", node: "c"})
	got := a.pending(sets.New[types.UID]("u2"), get)
	if len(got) != 2 || got["a"] != 1 || got["c"] != 1 {
		t.Errorf("pending = %v, want map[a:1 c:1] (p2 counted by the index already, p5 not yet)", got)
	}
	if len(a.byUID) != 1 {
		t.Errorf("assumed kept %d entries, want 1 (p1)", len(a.byUID))
	}
}
