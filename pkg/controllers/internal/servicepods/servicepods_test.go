package servicepods

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

func readyPod(name string, at time.Time) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Status: corev1.PodStatus{Conditions: []corev1.PodCondition{{
			Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(at),
		}}},
	}
}

// kube's rule: a new Service is explained by its creation; later, by the
// earliest pod whose readiness moved; nothing new is the zero time.
func TestTriggerTimes(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", CreationTimestamp: metav1.NewTime(at(3))}}
	var tt TriggerTimes
	if got := tt.Compute(svc, []*corev1.Pod{readyPod("a", at(0)), readyPod("b", at(5))}); !got.Equal(at(3)) {
		t.Errorf("new service: %v, want its creation", got)
	}
	if got := tt.Compute(svc, []*corev1.Pod{readyPod("a", at(0)), readyPod("b", at(5))}); !got.IsZero() {
		t.Errorf("nothing changed: %v, want zero", got)
	}
	if got := tt.Compute(svc, []*corev1.Pod{readyPod("a", at(9)), readyPod("b", at(7)), readyPod("c", at(8))}); !got.Equal(at(7)) {
		t.Errorf("pods changed: %v, want the earliest change", got)
	}
	tt.Forget("default/web")
	if got := tt.Compute(svc, nil); !got.Equal(at(3)) {
		t.Errorf("after Forget: %v, want the creation again", got)
	}
}

func TestFindPort(t *testing.T) {
	always := corev1.ContainerRestartPolicyAlways
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{UID: "u1"}, Spec: corev1.PodSpec{
		Containers: []corev1.Container{{Ports: []corev1.ContainerPort{
			{Name: "http", ContainerPort: 8080, Protocol: corev1.ProtocolTCP},
			{Name: "dns", ContainerPort: 53, Protocol: corev1.ProtocolUDP},
		}}},
		InitContainers: []corev1.Container{{RestartPolicy: &always, Ports: []corev1.ContainerPort{{Name: "sidecar", ContainerPort: 9000, Protocol: corev1.ProtocolTCP}}}},
	}}
	for _, tc := range []struct {
		target intstr.IntOrString
		proto  corev1.Protocol
		want   int32
		err    bool
	}{
		{intstr.FromInt32(7000), corev1.ProtocolTCP, 7000, false},
		{intstr.FromString("http"), corev1.ProtocolTCP, 8080, false},
		{intstr.FromString("dns"), corev1.ProtocolTCP, 0, true}, // wrong protocol
		{intstr.FromString("sidecar"), corev1.ProtocolTCP, 9000, false},
		{intstr.FromString("nope"), corev1.ProtocolTCP, 0, true},
	} {
		got, err := FindPort(pod, &corev1.ServicePort{TargetPort: tc.target, Protocol: tc.proto})
		if got != tc.want || (err != nil) != tc.err {
			t.Errorf("FindPort(%v/%s) = %d, %v", tc.target.String(), tc.proto, got, err)
		}
	}
}

func TestIncludedAndChanged(t *testing.T) {
	p := readyPod("a", time.Unix(0, 0))
	if Included(p, true) {
		t.Error("a pod without an IP is included")
	}
	p.Status.PodIP, p.Status.PodIPs = "10.0.0.1", []corev1.PodIP{{IP: "10.0.0.1"}}
	if !Included(p, false) || !Ready(p) {
		t.Error("a ready pod with an IP is left out")
	}
	gone := p.DeepCopy()
	gone.DeletionTimestamp = &metav1.Time{}
	if Included(gone, false) || !Included(gone, true) {
		t.Error("a terminating pod: wrong inclusion")
	}
	done := p.DeepCopy()
	done.Status.Phase = corev1.PodSucceeded
	if Included(done, true) {
		t.Error("a finished pod is included")
	}
	cur := p.DeepCopy()
	cur.ResourceVersion = "2"
	if Changed(p, cur) {
		t.Error("an update that changes nothing relevant counts")
	}
	cur.Status.Conditions[0].Status = corev1.ConditionFalse
	if !Changed(p, cur) {
		t.Error("a readiness change does not count")
	}
	if got := IPs(&corev1.Pod{Status: corev1.PodStatus{PodIPs: []corev1.PodIP{{IP: "10.0.0.1"}, {IP: "fd00::1"}}}}, true); len(got) != 1 || got[0] != "fd00::1" {
		t.Errorf("IPv6 IPs = %v", got)
	}
}
