package printers

import (
	"encoding/json"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func podList(n int) *corev1.PodList {
	list := &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "1"}}
	for i := 0; i < n; i++ {
		p := basePod()
		p.Name = fmt.Sprintf("web-%d", i)
		p.Status.Phase = corev1.PodRunning
		p.Status.ContainerStatuses = []corev1.ContainerStatus{running(true)}
		list.Items = append(list.Items, *p)
	}
	return list
}

// BenchmarkPodListTable renders 1000 pods as a Table and encodes it, as a
// `kubectl get pods` of that size costs the server.
func BenchmarkPodListTable(b *testing.B) {
	list := podList(1000)
	b.ReportAllocs()
	for b.Loop() {
		table, err := Pods(list, now)
		if err != nil {
			b.Fatal(err)
		}
		for i := range table.Rows {
			table.Rows[i].Object.Object = nil // includeObject=None
		}
		if _, err := json.Marshal(table); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPodListJSON is the baseline: encoding the same list as JSON,
// what `kubectl get pods -o json` costs.
func BenchmarkPodListJSON(b *testing.B) {
	list := podList(1000)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := json.Marshal(list); err != nil {
			b.Fatal(err)
		}
	}
}
