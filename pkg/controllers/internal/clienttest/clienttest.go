// Package clienttest helps controller unit tests that run real informers over
// client-go's fake clientset. It is imported by tests only.
//
// Two things about that fake make such tests racy when done naively:
//
//   - WaitForCacheSync returns once the informers have listed, but each
//     informer opens its watch only after that list. The watch is recorded as
//     an action like any other, so a test that clears the actions after the
//     sync and then expects none may still see a late "watch".
//   - The fake's watch replays objects added or changed since the list, but
//     not objects deleted in between: a delete made before the watch is open
//     never reaches the cache.
//   - It replays them by sending the objects it stores, not copies. An
//     informer's transform may trim what it receives in place (client-go
//     allows that), and would then write to the fake's objects while the
//     test reads them.
//
// Start therefore waits until every informer's watch is open and makes the
// watches send copies (CopyWatchedObjects), and Writes keeps only the
// actions that change something, which is what a test that says "the
// controller wrote nothing" means.
package clienttest

import (
	"context"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

// Timeout bounds how long Start waits for the informers. It is generous on
// purpose: it is only ever reached when something is broken, and a loaded
// machine running the race detector can be slow.
const Timeout = 30 * time.Second

// writeVerbs are the verbs of actions that change stored objects, on the
// object itself or on any subresource (status, finalize, ...).
var writeVerbs = sets.New("create", "update", "patch", "delete", "delete-collection")

// Start starts factory's informers, waits until their caches have synced and
// each has its watch open, and stops them (waiting for their goroutines) when
// the test ends. Informers must have been requested from factory before.
func Start(t testing.TB, client *fake.Clientset, factory informers.SharedInformerFactory) {
	t.Helper()
	CopyWatchedObjects(&client.Fake, client.Tracker())
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() { cancel(); factory.Shutdown() })
	factory.Start(ctx.Done())

	waitCtx, waitCancel := context.WithTimeout(ctx, Timeout)
	defer waitCancel()
	synced := factory.WaitForCacheSync(waitCtx.Done())
	for typ, ok := range synced {
		if !ok {
			t.Fatalf("informer for %v did not sync within %v", typ, Timeout)
		}
	}
	// The fake appends a watch action and registers its watcher with the
	// tracker under one hold of its lock, so a watch that Actions shows is
	// open: from then on no event can be missed.
	err := wait.PollUntilContextCancel(waitCtx, time.Millisecond, true, func(context.Context) (bool, error) {
		return len(watched(client)) >= len(synced), nil
	})
	if err != nil {
		t.Fatalf("informers watching %v, want %d watches open within %v", sets.List(watched(client)), len(synced), Timeout)
	}
}

// CopyWatchedObjects makes the watches of fake (a typed, dynamic or
// metadata fake client over tracker) send a copy of each event's object.
func CopyWatchedObjects(fake *k8stesting.Fake, tracker k8stesting.ObjectTracker) {
	fake.PrependWatchReactor("*", func(action k8stesting.Action) (bool, watch.Interface, error) {
		var opts metav1.ListOptions
		if wa, ok := action.(k8stesting.WatchActionImpl); ok {
			opts = wa.ListOptions
		}
		w, err := tracker.Watch(action.GetResource(), action.GetNamespace(), opts)
		if err != nil {
			return false, nil, err
		}
		return true, watch.Filter(w, func(ev watch.Event) (watch.Event, bool) {
			ev.Object = ev.Object.DeepCopyObject()
			return ev, true
		}), nil
	})
}

// watched returns the resources the fake has been asked to watch.
func watched(client *fake.Clientset) sets.Set[string] {
	out := sets.New[string]()
	for _, a := range client.Actions() {
		if a.GetVerb() == "watch" {
			out.Insert(a.GetResource().String())
		}
	}
	return out
}

// Actions are recorded client actions; printed with %v they read
// "patch pods/status default/web", one per action.
type Actions []k8stesting.Action

// Writes returns the actions recorded by client that change something:
// create, update, patch, delete and delete-collection, on any subresource.
// Reads (get, list, watch) are left out, the informers' own among them.
func Writes(client k8stesting.FakeClient) Actions {
	var out Actions
	for _, a := range client.Actions() {
		if writeVerbs.Has(a.GetVerb()) {
			out = append(out, a)
		}
	}
	return out
}

func (as Actions) String() string {
	parts := make([]string, len(as))
	for i, a := range as {
		parts[i] = describe(a)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// describe names one action by verb, resource and object.
func describe(a k8stesting.Action) string {
	what := a.GetResource().Resource
	if sub := a.GetSubresource(); sub != "" {
		what += "/" + sub
	}
	name := ""
	if a, ok := a.(interface{ GetName() string }); ok { // get, delete, patch
		name = a.GetName()
	}
	if a, ok := a.(interface{ GetObject() runtime.Object }); ok { // create, update
		if m, err := meta.Accessor(a.GetObject()); err == nil {
			name = m.GetName()
		}
	}
	if ns := a.GetNamespace(); ns != "" && name != "" {
		name = ns + "/" + name
	} else if ns != "" {
		name = ns
	}
	return strings.TrimSpace(a.GetVerb() + " " + what + " " + name)
}
