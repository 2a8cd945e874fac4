package controllers

import (
	"context"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
)

func TestDropManagedFieldsKeepsTheRest(t *testing.T) {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{
		Name: "web", Labels: map[string]string{"app": "web"},
		Annotations:   map[string]string{"controller.kubernetes.io/pod-deletion-cost": "5"},
		ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubectl", Operation: metav1.ManagedFieldsOperationUpdate}},
	}}
	out, err := dropManagedFields(p)
	if err != nil {
		t.Fatal(err)
	}
	got := out.(*corev1.Pod)
	if got.ManagedFields != nil {
		t.Errorf("managedFields kept: %v", got.ManagedFields)
	}
	if got.Labels["app"] != "web" || got.Annotations["controller.kubernetes.io/pod-deletion-cost"] != "5" {
		t.Errorf("labels or annotations lost: %v %v", got.Labels, got.Annotations)
	}
}

func TestDropManagedFieldsPassesTombstonesThrough(t *testing.T) {
	tomb := cache.DeletedFinalStateUnknown{Key: "default/web", Obj: &corev1.Pod{}}
	out, err := dropManagedFields(tomb)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := out.(cache.DeletedFinalStateUnknown); !ok {
		t.Errorf("a tombstone came out as %T", out)
	}
}

// TestSharedInformersCacheWithoutManagedFields: the factory the controllers
// share applies the transform, to listed objects and to watched ones alike:
// no managedFields, and equal resource lists shared.
func TestSharedInformersCacheWithoutManagedFields(t *testing.T) {
	managed := []metav1.ManagedFieldsEntry{{Manager: "kubectl", Operation: metav1.ManagedFieldsOperationUpdate}}
	containers := []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("64Mi")},
	}}}
	listed := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "listed", Namespace: "default", ManagedFields: managed}, Spec: corev1.PodSpec{Containers: containers}}
	client := fake.NewClientset(listed)
	// The fake clientset drops events made before its watch starts, so
	// the second pod is created only once the informer watches.
	watching := make(chan struct{})
	var once sync.Once
	client.PrependWatchReactor("pods", func(clienttesting.Action) (bool, watch.Interface, error) {
		once.Do(func() { close(watching) })
		return false, nil, nil
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	inf := newInformers(client)
	pods := inf.Core().V1().Pods()
	got := make(chan *corev1.Pod, 2)
	if _, err := pods.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) { got <- obj.(*corev1.Pod) },
	}); err != nil {
		t.Fatal(err)
	}
	inf.Start(ctx.Done())
	defer func() { cancel(); inf.Shutdown() }() // Shutdown waits for the informers, which stop with ctx
	if !cache.WaitForCacheSync(ctx.Done(), pods.Informer().HasSynced) {
		t.Fatal("the pod informer never synced")
	}
	select {
	case <-watching:
	case <-ctx.Done():
		t.Fatal("the pod informer never watched")
	}
	watched := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "watched", Namespace: "default", ManagedFields: managed}, Spec: corev1.PodSpec{Containers: containers}}
	if _, err := client.CoreV1().Pods("default").Create(ctx, watched, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var requests []corev1.ResourceList
	for range 2 {
		var p *corev1.Pod
		select {
		case p = <-got:
		case <-ctx.Done():
			t.Fatal("a pod never reached the handlers")
		}
		if p.ManagedFields != nil {
			t.Errorf("pod %s reached the handlers with managedFields %v", p.Name, p.ManagedFields)
		}
		cached, err := pods.Lister().Pods("default").Get(p.Name)
		if err != nil {
			t.Fatal(err)
		}
		if cached.ManagedFields != nil {
			t.Errorf("pod %s cached with managedFields %v", p.Name, cached.ManagedFields)
		}
		requests = append(requests, cached.Spec.Containers[0].Resources.Requests)
	}
	if !sameMap(requests[0], requests[1]) {
		t.Error("the two pods' equal requests are cached as two maps")
	}
}

func sameMap(x, y corev1.ResourceList) bool {
	return reflect.ValueOf(x).UnsafePointer() == reflect.ValueOf(y).UnsafePointer()
}

// TestSharedResourcesSharesEqualLists: pods with the same requests and
// limits end up with one map each, however the quantities were written;
// different lists stay apart, and the table stops growing at its bound.
func TestSharedResourcesSharesEqualLists(t *testing.T) {
	withResources := func(cpu string) *corev1.Pod {
		return &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse("64Mi")},
			Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("128Mi")},
		}}}}}
	}
	s := &sharedResources{lists: map[string]corev1.ResourceList{}}
	a, b, c := withResources("100m"), withResources("0.1"), withResources("200m")
	for _, p := range []*corev1.Pod{a, b, c} {
		s.share(p)
	}
	ra, rb, rc := a.Spec.Containers[0].Resources, b.Spec.Containers[0].Resources, c.Spec.Containers[0].Resources
	if !sameMap(ra.Requests, rb.Requests) || !sameMap(ra.Limits, rb.Limits) || !sameMap(ra.Limits, rc.Limits) {
		t.Error("equal resource lists are not shared")
	}
	if sameMap(ra.Requests, rc.Requests) {
		t.Error("different requests are shared")
	}
	if got := rb.Requests[corev1.ResourceCPU]; got.Cmp(resource.MustParse("100m")) != 0 {
		t.Errorf("b's cpu request is %s", got.String())
	}

	for i := range maxSharedResourceLists + 10 {
		s.share(withResources(fmt.Sprintf("%dm", 300+i)))
	}
	if len(s.lists) != maxSharedResourceLists {
		t.Errorf("%d lists kept, want at most %d", len(s.lists), maxSharedResourceLists)
	}
}
