package serviceaccount

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	clocktesting "k8s.io/utils/clock/testing"
)

var testNow = time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)

func activeNS(name string) *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: corev1.NamespaceStatus{Phase: corev1.NamespaceActive}}
}

func terminatingNS(name string) *corev1.Namespace {
	ns := activeNS(name)
	ts := metav1.NewTime(testNow)
	ns.DeletionTimestamp = &ts
	ns.Status.Phase = corev1.NamespaceTerminating
	return ns
}

func defaultSA(ns string) *corev1.ServiceAccount {
	return &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: DefaultName, Namespace: ns}}
}

// newTestController builds a controller over a fake clientset holding
// objs, with synced informers and the setup's actions cleared.
func newTestController(t *testing.T, objs ...runtime.Object) (*Controller, *fake.Clientset, informers.SharedInformerFactory) {
	t.Helper()
	client := fake.NewClientset(objs...)
	inf := informers.NewSharedInformerFactory(client, 0)
	c, err := New(Config{Client: client, Informers: inf, Clock: clocktesting.NewFakeClock(testNow)})
	if err != nil {
		t.Fatal(err)
	}
	// Cleanups run last first: stop the informers, then wait for them.
	t.Cleanup(inf.Shutdown)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	inf.Start(ctx.Done())
	inf.WaitForCacheSync(ctx.Done())
	client.ClearActions()
	return c, client, inf
}

// writes are the actions that change something; informers' list and
// watch calls may come at any time and are not what a test asserts.
func writes(client *fake.Clientset) []k8stesting.Action {
	var out []k8stesting.Action
	for _, a := range client.Actions() {
		switch a.GetVerb() {
		case "create", "update", "patch", "delete", "deletecollection":
			out = append(out, a)
		}
	}
	return out
}

func TestNewRequiresClientAndInformers(t *testing.T) {
	if _, err := New(Config{}); err == nil {
		t.Error("New without a client succeeded")
	}
}

func TestReconcileCreatesDefault(t *testing.T) {
	c, client, _ := newTestController(t, activeNS("team"))
	if err := c.Reconcile(context.Background(), "team"); err != nil {
		t.Fatal(err)
	}
	w := writes(client)
	if len(w) != 1 || w[0].GetVerb() != "create" || w[0].GetNamespace() != "team" ||
		w[0].GetResource() != (schema.GroupVersionResource{Version: "v1", Resource: "serviceaccounts"}) {
		t.Fatalf("writes = %v, want one create of a serviceaccount in team", w)
	}
	sa := w[0].(k8stesting.CreateAction).GetObject().(*corev1.ServiceAccount)
	if sa.Name != "default" || len(sa.Secrets) != 0 {
		t.Errorf("created %+v", sa)
	}
}

func TestReconcileWritesNothing(t *testing.T) {
	for _, tc := range []struct {
		name string
		objs []runtime.Object
	}{
		{"default exists", []runtime.Object{activeNS("team"), defaultSA("team")}},
		{"namespace terminating", []runtime.Object{terminatingNS("team")}},
		{"namespace without a phase yet", []runtime.Object{&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team"}}}},
		{"namespace gone", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, client, _ := newTestController(t, tc.objs...)
			if err := c.Reconcile(context.Background(), "team"); err != nil {
				t.Fatal(err)
			}
			if w := writes(client); len(w) != 0 {
				t.Errorf("writes = %v, want none", w)
			}
		})
	}
}

// The API's refusals that mean "nothing to do" are not errors: the cache
// was behind (AlreadyExists) or the namespace began terminating
// (Forbidden). Anything else is retried.
func TestReconcileCreateErrors(t *testing.T) {
	gr := schema.GroupResource{Resource: "serviceaccounts"}
	for _, tc := range []struct {
		name    string
		err     error
		wantErr bool
	}{
		{"already exists", apierrors.NewAlreadyExists(gr, "default"), false},
		{"forbidden", apierrors.NewForbidden(gr, "default", errors.New("namespace team is being terminated")), false},
		{"server error", apierrors.NewInternalError(errors.New("boom")), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, client, _ := newTestController(t, activeNS("team"))
			client.PrependReactor("create", "serviceaccounts", func(k8stesting.Action) (bool, runtime.Object, error) {
				return true, nil, tc.err
			})
			err := c.Reconcile(context.Background(), "team")
			if (err != nil) != tc.wantErr {
				t.Errorf("Reconcile = %v, want error %v", err, tc.wantErr)
			}
		})
	}
}

// Run: a new namespace gets its default, and a deleted default comes back.
func TestRunKeepsDefault(t *testing.T) {
	c, client, _ := newTestController(t)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { _ = c.Run(ctx) })
	t.Cleanup(func() { cancel(); wg.Wait() })

	sas := client.CoreV1().ServiceAccounts("team")
	if _, err := client.CoreV1().Namespaces().Create(ctx, activeNS("team"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "default created", func() bool { _, err := sas.Get(ctx, DefaultName, metav1.GetOptions{}); return err == nil })
	if err := sas.Delete(ctx, DefaultName, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "default recreated", func() bool {
		creates := 0
		for _, a := range writes(client) {
			if a.GetVerb() == "create" && a.GetResource().Resource == "serviceaccounts" {
				creates++
			}
		}
		_, err := sas.Get(ctx, DefaultName, metav1.GetOptions{})
		return creates >= 2 && err == nil
	})
}

// waitFor polls cond until it holds or 10s pass.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting: %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
