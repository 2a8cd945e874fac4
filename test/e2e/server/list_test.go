package server

import (
	"fmt"
	"sort"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestSelectorsAndPaging lists with label and field selectors, and pages
// through a collection with limit/continue.
func TestSelectorsAndPaging(t *testing.T) {
	s := start(t)
	c := s.Client()
	ctx := ctxFor(t)
	var want []string
	for i := 0; i < 7; i++ {
		tier := "back"
		if i%2 == 0 {
			tier = "front"
		}
		p := pod(fmt.Sprintf("p%d", i), map[string]string{"tier": tier})
		if i < 3 {
			p.Spec.NodeName = "node-a"
		}
		if _, err := c.CoreV1().Pods("default").Create(ctx, p, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		want = append(want, p.Name)
	}

	front, err := c.CoreV1().Pods("default").List(ctx, metav1.ListOptions{LabelSelector: "tier=front"})
	if err != nil {
		t.Fatal(err)
	}
	if got := names(front.Items); fmt.Sprint(got) != "[p0 p2 p4 p6]" {
		t.Errorf("tier=front: %v", got)
	}
	onNode, err := c.CoreV1().Pods("").List(ctx, metav1.ListOptions{FieldSelector: "spec.nodeName=node-a"})
	if err != nil {
		t.Fatal(err)
	}
	if got := names(onNode.Items); fmt.Sprint(got) != "[p0 p1 p2]" {
		t.Errorf("spec.nodeName=node-a: %v", got)
	}
	byName, err := c.CoreV1().Pods("default").List(ctx, metav1.ListOptions{FieldSelector: "metadata.name=p5", LabelSelector: "tier=back"})
	if err != nil {
		t.Fatal(err)
	}
	if got := names(byName.Items); fmt.Sprint(got) != "[p5]" {
		t.Errorf("metadata.name=p5,tier=back: %v", got)
	}

	var paged []string
	opts := metav1.ListOptions{Limit: 3}
	pages := 0
	var firstRV string
	for {
		l, err := c.CoreV1().Pods("default").List(ctx, opts)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		if firstRV == "" {
			firstRV = l.ResourceVersion
		} else if l.ResourceVersion != firstRV {
			t.Errorf("page %d read at %s, first page at %s", pages, l.ResourceVersion, firstRV)
		}
		paged = append(paged, names(l.Items)...)
		if l.Continue == "" {
			break
		}
		opts.Continue = l.Continue
		if pages == 1 {
			// A write between pages does not show in the later ones.
			if _, err := c.CoreV1().Pods("default").Create(ctx, pod("p9", nil), metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if pages != 3 || fmt.Sprint(paged) != fmt.Sprint(want) {
		t.Errorf("paged in %d pages: %v, want 3 pages of %v", pages, paged, want)
	}

	// A paged, selected list: limit counts matching items.
	l, err := c.CoreV1().Pods("default").List(ctx, metav1.ListOptions{LabelSelector: "tier=front", Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if got := names(l.Items); fmt.Sprint(got) != "[p0 p2]" || l.Continue == "" {
		t.Errorf("tier=front limit 2: %v continue %q", got, l.Continue)
	}
}

func names(pods []corev1.Pod) []string {
	var out []string
	for _, p := range pods {
		out = append(out, p.Name)
	}
	sort.Strings(out)
	return out
}
