package apiserver

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// BenchmarkPodCreateDryRun measures what a pod create costs the server
// without the fsync that dominates a real one (dryRun=All: defaults,
// admission, validation and the existence check, no write): with no
// LimitRange in the namespace (each create still reads the namespace's
// LimitRanges) and with one that sets defaults and checks a maximum.
func BenchmarkPodCreateDryRun(b *testing.B) {
	for _, c := range []struct {
		name   string
		ranges []*corev1.LimitRange
	}{
		{"no-limitrange", nil},
		{"limitrange", []*corev1.LimitRange{{
			ObjectMeta: metav1.ObjectMeta{Name: "defaults"},
			Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{{
				Type:    corev1.LimitTypeContainer,
				Default: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m"), corev1.ResourceMemory: resource.MustParse("256Mi")},
				Max:     corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("1Gi")},
			}}},
		}}},
	} {
		b.Run(c.name, func(b *testing.B) {
			ts := startTestServer(b)
			// No client-side rate limit: ts.client's 1,000 per second
			// would be all this measures.
			client, err := kubernetes.NewForConfig(&rest.Config{Host: ts.url, QPS: -1})
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			for _, lr := range c.ranges {
				if _, err := client.CoreV1().LimitRanges("default").Create(ctx, lr, metav1.CreateOptions{}); err != nil {
					b.Fatal(err)
				}
			}
			pod := &corev1.Pod{
				ObjectMeta: metav1.ObjectMeta{Name: "bench"},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}},
			}
			dryRun := metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				// client-go sets and clears the kind of the object it
				// encodes: each goroutine sends its own.
				pod := pod.DeepCopy()
				for pb.Next() {
					if _, err := client.CoreV1().Pods("default").Create(ctx, pod, dryRun); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}
