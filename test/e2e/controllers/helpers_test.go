// Package controllers tests the Deployment and ReplicaSet controllers end
// to end: a real bin/miniapi (with its in-process controllers and simulated
// kubelet) driven through client-go, watching the system converge.
package controllers

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"

	"github.com/miniapi/miniapi/test/e2e/harness"
)

const ns = "default"

// start runs miniapi with instant pod readiness unless args say otherwise.
func start(t *testing.T, args ...string) (*harness.Server, kubernetes.Interface) {
	t.Helper()
	s := harness.Start(t, append([]string{"--pod-ready-delay=0"}, args...)...)
	return s, s.Client()
}

func ctxFor(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func ptr[T any](v T) *T { return &v }

// deployment is what `kubectl create deployment name --image=image
// --replicas=n` sends.
func deployment(name, image string, n int32) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr(n),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: image}}},
			},
		},
	}
}

func rollingUpdate(d *appsv1.Deployment, surge, unavailable intstr.IntOrString) *appsv1.Deployment {
	d.Spec.Strategy = appsv1.DeploymentStrategy{
		Type:          appsv1.RollingUpdateDeploymentStrategyType,
		RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: &surge, MaxUnavailable: &unavailable},
	}
	return d
}

// eventually polls cond every 50ms until it reports done or timeout
// passes; then the test fails with cond's last explanation.
func eventually(t *testing.T, timeout time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	last := ""
	for time.Now().Before(deadline) {
		ok, why := cond()
		if ok {
			return
		}
		last = why
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("timed out after %s waiting for %s; last seen: %s", timeout, what, last)
}

// replicaSetsOf lists the ReplicaSets a Deployment controls.
func replicaSetsOf(t *testing.T, c kubernetes.Interface, d *appsv1.Deployment) []appsv1.ReplicaSet {
	t.Helper()
	list, err := c.AppsV1().ReplicaSets(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out []appsv1.ReplicaSet
	for _, rs := range list.Items {
		if ref := metav1.GetControllerOf(&rs); ref != nil && ref.UID == d.UID {
			out = append(out, rs)
		}
	}
	return out
}

// livePods lists the pods with label app=name that are not being deleted.
func livePods(t *testing.T, c kubernetes.Interface, name string) []corev1.Pod {
	t.Helper()
	list, err := c.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{LabelSelector: "app=" + name})
	if err != nil {
		t.Fatal(err)
	}
	var out []corev1.Pod
	for _, p := range list.Items {
		if p.DeletionTimestamp == nil {
			out = append(out, p)
		}
	}
	return out
}

func isReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// settled waits until the Deployment has observed its generation and runs
// exactly want Running, Ready pods, all from one ReplicaSet of the current
// template (whose other ReplicaSets are at zero). It returns the
// Deployment and that ReplicaSet.
func settled(t *testing.T, c kubernetes.Interface, name string, want int32) (*appsv1.Deployment, *appsv1.ReplicaSet) {
	t.Helper()
	var d *appsv1.Deployment
	var cur *appsv1.ReplicaSet
	eventually(t, 30*time.Second, fmt.Sprintf("%s to settle at %d ready pods", name, want), func() (bool, string) {
		var err error
		if d, err = c.AppsV1().Deployments(ns).Get(context.Background(), name, metav1.GetOptions{}); err != nil {
			return false, err.Error()
		}
		st := d.Status
		if st.ObservedGeneration != d.Generation || st.Replicas != want || st.UpdatedReplicas != want ||
			st.ReadyReplicas != want || st.AvailableReplicas != want || st.UnavailableReplicas != 0 {
			return false, fmt.Sprintf("generation %d, status %+v", d.Generation, st)
		}
		cur = nil
		for _, rs := range replicaSetsOf(t, c, d) {
			if *rs.Spec.Replicas > 0 || rs.Status.Replicas > 0 {
				if cur != nil {
					return false, fmt.Sprintf("two active replicasets %s and %s", cur.Name, rs.Name)
				}
				cur = &rs
			}
		}
		if want > 0 && cur == nil {
			return false, "no active replicaset"
		}
		pods := livePods(t, c, name)
		if len(pods) != int(want) {
			return false, fmt.Sprintf("%d live pods", len(pods))
		}
		for _, p := range pods {
			if p.Status.Phase != corev1.PodRunning || !isReady(&p) {
				return false, fmt.Sprintf("pod %s is %s, ready=%v", p.Name, p.Status.Phase, isReady(&p))
			}
			if ref := metav1.GetControllerOf(&p); ref == nil || ref.UID != cur.UID {
				return false, fmt.Sprintf("pod %s not controlled by %s", p.Name, cur.Name)
			}
		}
		return true, ""
	})
	return d, cur
}

var podName = regexp.MustCompile(`^[a-z0-9-]+-[a-z0-9]{5}$`)

// checkNaming asserts kube's naming: <deployment>-<pod-template-hash> for
// the ReplicaSet, <replicaset>-<5 chars> for its pods, the hash label on
// both and controller ownerReferences with blockOwnerDeletion.
func checkNaming(t *testing.T, c kubernetes.Interface, d *appsv1.Deployment, rs *appsv1.ReplicaSet) {
	t.Helper()
	hash := rs.Labels["pod-template-hash"]
	if hash == "" || rs.Name != d.Name+"-"+hash || rs.Spec.Selector.MatchLabels["pod-template-hash"] != hash ||
		rs.Spec.Template.Labels["pod-template-hash"] != hash {
		t.Errorf("replicaset %s: want name %s-<hash> with the pod-template-hash label on itself, selector and template; labels %v selector %v",
			rs.Name, d.Name, rs.Labels, rs.Spec.Selector.MatchLabels)
	}
	ref := metav1.GetControllerOf(rs)
	if ref == nil || ref.Kind != "Deployment" || ref.Name != d.Name || ref.BlockOwnerDeletion == nil || !*ref.BlockOwnerDeletion {
		t.Errorf("replicaset %s ownerReferences = %+v, want a blocking controller reference to %s", rs.Name, rs.OwnerReferences, d.Name)
	}
	for _, p := range livePods(t, c, d.Name) {
		if !strings.HasPrefix(p.Name, rs.Name+"-") || !podName.MatchString(p.Name) || p.GenerateName != rs.Name+"-" {
			t.Errorf("pod %s (generateName %q): want %s-<5 random chars>", p.Name, p.GenerateName, rs.Name)
		}
		if p.Labels["pod-template-hash"] != hash {
			t.Errorf("pod %s labels %v lack pod-template-hash=%s", p.Name, p.Labels, hash)
		}
	}
}

// eventMessages returns the messages of the events about obj with reason.
func eventMessages(t *testing.T, c kubernetes.Interface, objName, reason string) []string {
	t.Helper()
	list, err := c.CoreV1().Events(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range list.Items {
		if e.InvolvedObject.Name == objName && e.Reason == reason {
			out = append(out, e.Message)
		}
	}
	return out
}

func hasEvent(t *testing.T, c kubernetes.Interface, objName, reason, message string) func() (bool, string) {
	return func() (bool, string) {
		msgs := eventMessages(t, c, objName, reason)
		for _, m := range msgs {
			if m == message {
				return true, ""
			}
		}
		return false, fmt.Sprintf("%s events for %s: %q", reason, objName, msgs)
	}
}

func condition(d *appsv1.Deployment, t appsv1.DeploymentConditionType) *appsv1.DeploymentCondition {
	for i := range d.Status.Conditions {
		if d.Status.Conditions[i].Type == t {
			return &d.Status.Conditions[i]
		}
	}
	return nil
}
