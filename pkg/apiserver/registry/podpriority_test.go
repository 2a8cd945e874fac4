package registry

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/miniapi/miniapi/pkg/storage/boltstore"
)

func TestPodPriorityFromClass(t *testing.T) {
	store, err := boltstore.Open(filepath.Join(t.TempDir(), "db"), boltstore.Options{HistorySize: 100})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	ctx := context.Background()
	res := priorityClasses(Options{})
	for _, pc := range []*schedulingv1.PriorityClass{
		{ObjectMeta: objMeta("high", ""), Value: 100000, PreemptionPolicy: ptr(corev1.PreemptLowerPriority)},
		{ObjectMeta: objMeta("polite", ""), Value: 50, PreemptionPolicy: ptr(corev1.PreemptNever)},
	} {
		b, _ := json.Marshal(pc)
		if _, err := store.Create(ctx, res.KeyPrefix()+pc.Name, b); err != nil {
			t.Fatal(err)
		}
	}
	r := pods(Options{Store: store})
	// Without a store there are no classes, and the other admission
	// still runs.
	storeless := &corev1.Pod{ObjectMeta: objMeta("p", "default"), Spec: corev1.PodSpec{PriorityClassName: "high"}}
	if _, err := pods(Options{}).Hooks.BeginCreate(ctx, storeless, false); !apierrors.IsForbidden(err) {
		t.Errorf("class without a store: %v", err)
	}
	create := func(class string, priority *int32, policy *corev1.PreemptionPolicy) (*corev1.Pod, error) {
		pod := &corev1.Pod{ObjectMeta: objMeta("prio", "default"), Spec: corev1.PodSpec{
			Containers: []corev1.Container{container("c", "nginx")}, PriorityClassName: class, Priority: priority, PreemptionPolicy: policy,
		}}
		r.Strategy.PrepareForCreate(pod)
		_, err := r.Hooks.BeginCreate(ctx, pod, false)
		return pod, err
	}

	pod, err := create("high", nil, nil)
	if err != nil || *pod.Spec.Priority != 100000 || *pod.Spec.PreemptionPolicy != corev1.PreemptLowerPriority {
		t.Errorf("high: %v, priority %v policy %v", err, pod.Spec.Priority, pod.Spec.PreemptionPolicy)
	}
	pod, err = create("polite", ptr(int32(50)), nil)
	if err != nil || *pod.Spec.Priority != 50 || *pod.Spec.PreemptionPolicy != corev1.PreemptNever {
		t.Errorf("polite: %v, priority %v policy %v", err, pod.Spec.Priority, pod.Spec.PreemptionPolicy)
	}
	pod, err = create("", nil, nil)
	if err != nil || *pod.Spec.Priority != 0 || *pod.Spec.PreemptionPolicy != corev1.PreemptLowerPriority {
		t.Errorf("no class: %v, priority %v policy %v", err, pod.Spec.Priority, pod.Spec.PreemptionPolicy)
	}
	for _, tc := range []struct {
		class    string
		priority *int32
		policy   *corev1.PreemptionPolicy
		want     string
	}{
		{"nope", nil, nil, `pods "prio" is forbidden: no PriorityClass with name nope was found`},
		{"high", ptr(int32(7)), nil, `pods "prio" is forbidden: the integer value of priority (7) must not be provided in pod spec; priority admission controller computed 100000 from the given PriorityClass name`},
		{"polite", nil, ptr(corev1.PreemptLowerPriority), `pods "prio" is forbidden: the string value of PreemptionPolicy (PreemptLowerPriority) must not be provided in pod spec; priority admission controller computed Never from the given PriorityClass name`},
	} {
		if _, err := create(tc.class, tc.priority, tc.policy); !apierrors.IsForbidden(err) || err.Error() != tc.want {
			t.Errorf("class %s: %v, want %s", tc.class, err, tc.want)
		}
	}
}
