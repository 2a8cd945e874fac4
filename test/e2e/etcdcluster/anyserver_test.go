package etcdcluster

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestAnyServer: the real kubectl and client-go informers work through
// any of the three servers. Writes go through every server in turn, by
// kubectl and by client-go; an informer on each server sees every write,
// in the order written, with the resourceVersion its writer was
// answered, and the three informers see the same stream.
func TestAnyServer(t *testing.T) {
	c := startCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const ns = "shared"
	if r := c.servers[1].Run("kubectl", "", "create", "namespace", ns); r.ExitCode != 0 {
		t.Fatalf("kubectl create namespace: %s", r)
	}
	var recs []*recorder
	for _, client := range c.clients {
		recs = append(recs, startInformer(t, configMapWatch(client, ns)))
	}

	// kubectl creates through each server; kubectl on the two others
	// gets the object at the resourceVersion the writer answered.
	var want []seen
	for i, s := range c.servers {
		name := fmt.Sprintf("cm-%d", i)
		r := s.Run("kubectl", "", "-n", ns, "create", "configmap", name, fmt.Sprintf("--from-literal=server=%d", i),
			"-o", "jsonpath={.metadata.resourceVersion}")
		if r.ExitCode != 0 || r.Stdout == "" {
			t.Fatalf("kubectl create configmap through server %d: %s", i, r)
		}
		want = append(want, seen{"ADDED", name, r.Stdout})
		for _, other := range []int{(i + 1) % 3, (i + 2) % 3} {
			g := c.servers[other].Run("kubectl", "", "-n", ns, "get", "configmap", name, "-o", "jsonpath={.metadata.resourceVersion}")
			if g.ExitCode != 0 || g.Stdout != r.Stdout {
				t.Fatalf("server %d wrote %s at rv %s; kubectl through server %d: %s", i, name, r.Stdout, other, g)
			}
		}
	}

	// client-go updates each through the next server.
	for i := range 3 {
		name := fmt.Sprintf("cm-%d", i)
		cms := c.clients[(i+1)%3].CoreV1().ConfigMaps(ns)
		cm, err := cms.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		cm.Data["updated-by"] = fmt.Sprint((i + 1) % 3)
		if cm, err = cms.Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		want = append(want, seen{"MODIFIED", name, cm.ResourceVersion})
	}

	// Deletes by kubectl and by client-go, through two more servers. A
	// delete's event carries the delete's revision, which the deleter is
	// not told: the informers must agree on it among themselves.
	if r := c.servers[2].Run("kubectl", "", "-n", ns, "delete", "configmap", "cm-0"); r.ExitCode != 0 {
		t.Fatalf("kubectl delete: %s", r)
	}
	if err := c.clients[0].CoreV1().ConfigMaps(ns).Delete(ctx, "cm-1", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	want = append(want, seen{"DELETED", "cm-0", ""}, seen{"DELETED", "cm-1", ""})

	for i, rec := range recs {
		waitFor(t, 30*time.Second, fmt.Sprintf("informer on server %d sees %d events", i, len(want)),
			func() bool { return len(rec.snapshot()) >= len(want) })
	}
	first := recs[0].snapshot()
	for i, rec := range recs {
		got := rec.snapshot()
		if !sameEvents(got, want) || !slices.Equal(got, first) {
			t.Errorf("informer on server %d saw\n  %v\nwant\n  %v\n(informer on server 0 saw %v)", i, got, want, first)
		}
	}

	// And a list through kubectl is the same on every server.
	var lists []string
	for i, s := range c.servers {
		r := s.Run("kubectl", "", "-n", ns, "get", "configmaps", "-o",
			`jsonpath={range .items[*]}{.metadata.name}@{.metadata.resourceVersion} {end}`)
		if r.ExitCode != 0 {
			t.Fatalf("kubectl get configmaps through server %d: %s", i, r)
		}
		lists = append(lists, r.Stdout)
	}
	if wantList := "cm-2@" + want[5].rv + " "; lists[0] != wantList || lists[1] != lists[0] || lists[2] != lists[0] {
		t.Errorf("kubectl lists %q through the three servers, want %q on each", lists, wantList)
	}
}

// sameEvents is whether got is want, an empty rv in want matching any.
func sameEvents(got, want []seen) bool {
	return slices.EqualFunc(got, want, func(g, w seen) bool {
		return g.typ == w.typ && g.name == w.name && (w.rv == "" || g.rv == w.rv)
	})
}
