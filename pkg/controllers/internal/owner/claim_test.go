package owner

import (
	"context"
	"log/slog"
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
)

func TestClaim(t *testing.T) {
	rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", UID: "rs-uid"}}
	kind := appsv1.SchemeGroupVersion.WithKind("ReplicaSet")
	ref := ControllerRef(rs, kind)
	pod := func(name, app string, owned bool) *corev1.Pod {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID("uid-" + name), Labels: map[string]string{"app": app}}}
		if owned {
			p.OwnerReferences = []metav1.OwnerReference{ref}
		}
		return p
	}
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{Index: IndexFunc})
	for _, p := range []*corev1.Pod{pod("kept", "web", true), pod("strayed", "db", true), pod("orphan", "web", false), pod("other", "db", false)} {
		if err := indexer.Add(p); err != nil {
			t.Fatal(err)
		}
	}
	sel := labels.SelectorFromSet(labels.Set{"app": "web"})

	claim := func(live bool, owner *appsv1.ReplicaSet) (names, patched []string) {
		patch := func(_ context.Context, p *corev1.Pod, _ []byte) error { patched = append(patched, p.Name); return nil }
		stillLive := func(context.Context) (bool, error) { return live, nil }
		got, err := Claim(context.Background(), slog.Default(), indexer, owner, kind, sel, patch, stillLive)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range got {
			names = append(names, p.Name)
		}
		slices.Sort(names)
		slices.Sort(patched)
		return names, patched
	}

	names, patched := claim(true, rs)
	if !slices.Equal(names, []string{"kept", "orphan"}) || !slices.Equal(patched, []string{"orphan", "strayed"}) {
		t.Errorf("live owner: claimed %v, patched %v; want [kept orphan], patched [orphan strayed]", names, patched)
	}
	names, patched = claim(false, rs)
	if !slices.Equal(names, []string{"kept"}) || !slices.Equal(patched, []string{"strayed"}) {
		t.Errorf("owner gone on the server: claimed %v, patched %v; want [kept], patched [strayed] (no adoption)", names, patched)
	}
	deleting := rs.DeepCopy()
	deleting.DeletionTimestamp = &metav1.Time{}
	names, patched = claim(true, deleting)
	if !slices.Equal(names, []string{"kept", "strayed"}) || len(patched) != 0 {
		t.Errorf("owner being deleted: claimed %v, patched %v; want [kept strayed], no patches", names, patched)
	}
}
