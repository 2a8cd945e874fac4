package pass

import (
	"encoding/json"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// BenchmarkResourceVersionOfPod is the journal's cost per write: reading
// the resourceVersion of a created pod's answer.
func BenchmarkResourceVersionOfPod(b *testing.B) {
	isController := true
	pod := &corev1.Pod{TypeMeta: metav1.TypeMeta{Kind: "Pod", APIVersion: "v1"},
		ObjectMeta: metav1.ObjectMeta{Name: "web-5fc9f4bf66-abcde", GenerateName: "web-5fc9f4bf66-", Namespace: "default",
			UID: "0b4a3e52-7f0e-4e1e-9d4c-1b2f3a4b5c6d", ResourceVersion: "12345", Labels: map[string]string{"app": "web", "pod-template-hash": "5fc9f4bf66"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-5fc9f4bf66", UID: "1b4a3e52-7f0e-4e1e-9d4c-1b2f3a4b5c6d", Controller: &isController}},
			ManagedFields:   []metav1.ManagedFieldsEntry{{Manager: "kube-controller-manager", Operation: "Update", APIVersion: "v1", FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1(`{"f:metadata":{"f:generateName":{},"f:labels":{".":{},"f:app":{},"f:pod-template-hash":{}},"f:ownerReferences":{".":{},"k:{\"uid\":\"1b4a3e52\"}":{}}},"f:spec":{"f:containers":{"k:{\"name\":\"nginx\"}":{".":{},"f:image":{},"f:imagePullPolicy":{},"f:name":{},"f:resources":{},"f:terminationMessagePath":{},"f:terminationMessagePolicy":{}}},"f:dnsPolicy":{},"f:enableServiceLinks":{},"f:restartPolicy":{},"f:schedulerName":{},"f:securityContext":{},"f:terminationGracePeriodSeconds":{}}}`)}}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: "nginx", TerminationMessagePath: "/dev/termination-log", ImagePullPolicy: "Always"}},
			RestartPolicy: "Always", DNSPolicy: "ClusterFirst", SchedulerName: "default-scheduler"},
		Status: corev1.PodStatus{Phase: "Pending", QOSClass: "BestEffort"}}
	body, err := json.Marshal(pod)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if resourceVersionOf("application/json", body) != "12345" {
			b.Fatal("wrong resourceVersion")
		}
	}
}
