package garbagecollector

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	fakediscovery "k8s.io/client-go/discovery/fake"
	metadatafake "k8s.io/client-go/metadata/fake"
	k8stesting "k8s.io/client-go/testing"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/miniapi/miniapi/pkg/controllers/internal/clienttest"
)

const resyncPeriod = time.Minute

// widgets is the discovery of a custom resource, example.com/v1 Widget.
func widgets() *metav1.APIResourceList {
	return &metav1.APIResourceList{GroupVersion: "example.com/v1", APIResources: []metav1.APIResource{
		{Name: "widgets", Kind: "Widget", Namespaced: true, Verbs: metav1.Verbs{"create", "delete", "get", "list", "patch", "watch"}},
	}}
}

func widgetRef(apiVersion, name string, uid string) metav1.OwnerReference {
	return metav1.OwnerReference{APIVersion: apiVersion, Kind: "Widget", Name: name, UID: types.UID(uid)}
}

// run runs c until the returned stop is called or the test ends; stop
// fails the test if Run does not return, its goroutines ended.
func run(t *testing.T, c *Collector) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("Run: %v", err)
				}
			case <-time.After(clienttest.Timeout):
				t.Errorf("Run did not return within %v of its context ending", clienttest.Timeout)
			}
		})
	}
	t.Cleanup(stop)
	return stop
}

// resyncUntil steps clk (if any) one resync period at a time until cond
// holds.
func resyncUntil(t *testing.T, clk *testingclock.FakeClock, what string, cond func() bool) {
	t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), time.Millisecond, clienttest.Timeout, true, func(context.Context) (bool, error) {
		if cond() {
			return true, nil
		}
		if clk != nil {
			clk.Step(resyncPeriod)
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("%s: not within %v of resyncs", what, clienttest.Timeout)
	}
}

func kindNamed(c *Collector, resource string) *kind {
	for _, k := range c.currentKinds() {
		if k.resource == resource {
			return k
		}
	}
	return nil
}

// metaDeletes are the deletes sent through the metadata client, as
// "resource/name".
func metaDeletes(meta *metadatafake.FakeMetadataClient) []string {
	var out []string
	for _, a := range meta.Actions() {
		if d, ok := a.(k8stesting.DeleteActionImpl); ok {
			out = append(out, d.Resource.Resource+"/"+d.Name)
		}
	}
	return out
}

// A dependent whose owner's kind is not served yet is kept (the owner may
// exist); once discovery lists the kind, the collector looks again, finds
// the owner gone and deletes the dependent.
func TestResourceServedLaterIsCollected(t *testing.T) {
	clk := testingclock.NewFakeClock(time.Now())
	e := newWithMetadata(t, Config{Clock: clk, DiscoveryResyncPeriod: resyncPeriod, Workers: 1}, discovered(), nil,
		partial(configMapGVR, "ConfigMap", "child", "cm1", widgetRef("example.com/v1", "w", "w1")),
		partial(configMapGVR, "ConfigMap", "bystander", "cm2"))
	e.startInformers(t)
	// The one worker takes the child, then the sentinel (an orphan of a
	// known kind): once the sentinel is deleted, the child was looked at
	// while widgets were not served, and is out of the queue.
	waitQueued(t, e.c, 1)
	sentinel := partial(configMapGVR, "ConfigMap", "sentinel", "cm3", ref("Deployment", "gone", "gone-uid", false))
	if _, err := e.meta.Resource(configMapGVR).Namespace("default").(metadatafake.MetadataClient).CreateFake(sentinel, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitQueued(t, e.c, 2)
	run(t, e.c)
	resyncUntil(t, nil, "sentinel deleted", func() bool { return slices.Contains(metaDeletes(e.meta), "configmaps/sentinel") })
	if d := metaDeletes(e.meta); slices.Contains(d, "configmaps/child") {
		t.Fatalf("deleted %v while the owner's kind was not served; want the child kept", d)
	}

	e.client.Resources = append(discovered(), widgets()) // before any tick: the loop reads it after
	resyncUntil(t, clk, "child of a gone Widget deleted", func() bool {
		return slices.Contains(metaDeletes(e.meta), "configmaps/child")
	})
	if k := kindNamed(e.c, "widgets.example.com"); k == nil || k.apiVersion != "example.com/v1" || k.kind != "Widget" {
		t.Errorf("kind of widgets = %+v, want example.com/v1 Widget", k)
	}
	if d := metaDeletes(e.meta); !slices.Equal(d, []string{"configmaps/sentinel", "configmaps/child"}) {
		t.Errorf("deleted %v, want configmaps/sentinel then configmaps/child", d)
	}
}

// waitQueued waits until n keys wait in c's queue.
func waitQueued(t *testing.T, c *Collector, n int) {
	t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), time.Millisecond, clienttest.Timeout, true, func(context.Context) (bool, error) {
		return c.driver.Len() == n, nil
	})
	if err != nil {
		t.Fatalf("%d keys queued, want %d", c.driver.Len(), n)
	}
}

// A resource no longer served loses its informer, and the rest keep
// theirs; when Run returns, every informer the collector started has
// stopped.
func TestResourceNoLongerServedStopsItsInformer(t *testing.T) {
	clk := testingclock.NewFakeClock(time.Now())
	e := newWithMetadata(t, Config{Clock: clk, DiscoveryResyncPeriod: resyncPeriod}, append(discovered(), widgets()), nil,
		partial(widgetGVR, "Widget", "w", "w1"))
	clienttest.Start(t, e.client, e.informers)
	stopRun := run(t, e.c)
	waitSynced(t, e.c)
	w := kindNamed(e.c, "widgets.example.com")
	if w == nil {
		t.Fatal("widgets are not watched though discovery lists them")
	}

	e.client.Resources = discovered()
	resyncUntil(t, clk, "widgets let go", func() bool { return kindNamed(e.c, "widgets.example.com") == nil })
	if !w.informer.IsStopped() {
		t.Error("the informer of widgets, no longer served, still runs")
	}
	cm := kindNamed(e.c, "configmaps")
	if cm == nil || cm.informer.IsStopped() {
		t.Fatal("the informer of configmaps, still served, was stopped")
	}

	stopRun()
	for _, k := range e.c.currentKinds()[len(e.c.typed):] {
		if !k.informer.IsStopped() {
			t.Errorf("the informer of %s still runs after Run returned", k.resource)
		}
	}
}

// An owner reference may name its kind in a version other than the one
// discovery prefers: it is the same object.
func TestOwnerNamedInAnotherVersionIsLookedUp(t *testing.T) {
	e := newWithMetadata(t, Config{}, append(discovered(), widgets()), nil,
		partial(widgetGVR, "Widget", "live", "w1"),
		partial(configMapGVR, "ConfigMap", "orphan", "cm1", widgetRef("example.com/v1beta1", "gone", "w0")),
		partial(configMapGVR, "ConfigMap", "owned", "cm2", widgetRef("example.com/v1beta1", "live", "w1")))
	e.startInformers(t)
	for _, key := range []string{"configmaps/default/orphan", "configmaps/default/owned"} {
		if err := e.c.Reconcile(context.Background(), key); err != nil {
			t.Fatal(err)
		}
	}
	if d := metaDeletes(e.meta); !slices.Equal(d, []string{"configmaps/orphan"}) {
		t.Errorf("deleted %v, want only configmaps/orphan", d)
	}
}

// An owner deleted with the orphan finalizer keeps it while a monitor
// discovery just started has not synced: a dependent in that cache would
// otherwise keep its reference, and be deleted once the owner is gone.
func TestOrphanFinalizerWaitsForNewMonitorToSync(t *testing.T) {
	parent := partial(configMapGVR, "ConfigMap", "parent", "cm1")
	parent.Finalizers = []string{FinalizerOrphan}
	now := metav1.Now()
	parent.DeletionTimestamp = &now
	e := newWithMetadata(t, Config{}, discovered(), nil, parent)
	e.meta.PrependReactor("list", "widgets", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, errors.New("widgets cannot be listed yet")
	})
	e.startInformers(t)
	ctx := context.Background()
	e.client.Resources = append(discovered(), widgets())
	e.c.resyncMonitors(ctx)
	if kindNamed(e.c, "widgets.example.com") == nil {
		t.Fatal("widgets are not watched after discovery lists them")
	}
	if err := e.c.Reconcile(ctx, "configmaps/default/parent"); !errors.Is(err, errNotSynced) {
		t.Errorf("Reconcile = %v, want %v", err, errNotSynced)
	}
	p, err := e.meta.Resource(configMapGVR).Namespace("default").Get(ctx, "parent", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(p.Finalizers, []string{FinalizerOrphan}) {
		t.Errorf("finalizers = %v, want the orphan finalizer kept", p.Finalizers)
	}
}

// A group that fails discovery keeps the monitors it had: its resources
// are still served, as far as anyone knows.
func TestFailedDiscoveryKeepsMonitors(t *testing.T) {
	e := newWithMetadata(t, Config{}, append(discovered(), widgets()), nil)
	e.startInformers(t)
	w := kindNamed(e.c, "widgets.example.com")
	e.client.Discovery().(*fakediscovery.FakeDiscovery).PrependReactor("get", "resource", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, errors.New("discovery is down")
	})
	e.c.resyncMonitors(context.Background())
	if got := kindNamed(e.c, "widgets.example.com"); got == nil || got != w || w.informer.IsStopped() {
		t.Errorf("widgets' monitor was replaced or stopped when its group failed discovery")
	}
}
