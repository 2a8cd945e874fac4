package lifecycle

import (
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"

	"github.com/miniapi/miniapi/test/e2e/harness"
)

// A bare pod is scheduled, becomes Running and Ready after
// --pod-ready-delay with a kubelet's status and events, and on delete goes
// Terminating, then away.
func TestBarePodScheduledRunningThenDeleted(t *testing.T) {
	t.Parallel()
	s := harness.Start(t, "--nodes=2", "--pod-ready-delay=1s")
	c := s.Client()
	ctx := ctxFor(t)
	readyNodes(t, c, 2)
	pods := c.CoreV1().Pods("default")
	for _, name := range []string{"web", "api"} {
		if _, err := pods.Create(ctx, pod(name), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	var web, api *corev1.Pod
	eventually(t, 15*time.Second, func() (bool, string) {
		var err error
		if web, err = pods.Get(ctx, "web", metav1.GetOptions{}); err != nil {
			return false, err.Error()
		}
		if api, err = pods.Get(ctx, "api", metav1.GetOptions{}); err != nil {
			return false, err.Error()
		}
		return podReady(web) && podReady(api), fmt.Sprintf("web %s, api %s", web.Status.Phase, api.Status.Phase)
	})
	if web.Spec.NodeName == api.Spec.NodeName {
		t.Errorf("both pods on %s; two pods on two empty nodes should spread", web.Spec.NodeName)
	}
	node, err := c.CoreV1().Nodes().Get(ctx, web.Spec.NodeName, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("web is bound to %q: %v", web.Spec.NodeName, err)
	}
	checkRunningStatus(t, web, node)
	if web.Status.PodIP == api.Status.PodIP {
		t.Errorf("both pods have podIP %s", web.Status.PodIP)
	}
	scheduled := condition(web, corev1.PodScheduled).LastTransitionTime.Time
	if ready := condition(web, corev1.PodReady).LastTransitionTime.Time; ready.Before(scheduled) {
		t.Errorf("Ready at %s before PodScheduled at %s", ready, scheduled)
	}

	evs := eventsFor(t, s, "web", []string{"Scheduled", "Pulled", "Created", "Started"})
	wantMsg := map[string]string{
		"Scheduled": "Successfully assigned default/web to " + web.Spec.NodeName,
		"Pulled":    `Container image "nginx:1.27" already present on machine`,
		"Created":   "Created container: web",
		"Started":   "Started container web",
	}
	for reason, msg := range wantMsg {
		e := evs[reason]
		if e.Message != msg {
			t.Errorf("%s event message %q, want %q", reason, e.Message, msg)
		}
		src := "kubelet"
		if reason == "Scheduled" {
			src = "default-scheduler"
		}
		if e.Source.Component != src {
			t.Errorf("%s event from %q, want %q", reason, e.Source.Component, src)
		}
	}

	w, err := pods.Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=web", ResourceVersion: web.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if err := pods.Delete(ctx, "web", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if out := s.Run("kubectl", "", "get", "pod", "web"); !strings.Contains(out.Stdout, "Terminating") {
		t.Logf("kubectl get pod web after delete (may already be gone):\n%s", out)
	}
	// Terminating for --pod-ready-delay, then gone.
	markedThenGone(t, w, 10*time.Second)
	if e := eventsFor(t, s, "web", []string{"Killing"})["Killing"]; e.Message != "Stopping container web" {
		t.Errorf("Killing event message %q", e.Message)
	}
}

func checkRunningStatus(t *testing.T, p *corev1.Pod, node *corev1.Node) {
	t.Helper()
	st := p.Status
	for _, ct := range []corev1.PodConditionType{corev1.PodReadyToStartContainers, corev1.PodInitialized, corev1.ContainersReady, corev1.PodReady, corev1.PodScheduled} {
		c := condition(p, ct)
		if c == nil || c.Status != corev1.ConditionTrue || c.LastTransitionTime.IsZero() {
			t.Errorf("condition %s = %+v, want True with a time", ct, c)
		}
	}
	if st.HostIP == "" || st.HostIP != node.Status.Addresses[0].Address {
		t.Errorf("hostIP %q, want the node's InternalIP %q", st.HostIP, node.Status.Addresses[0].Address)
	}
	if !strings.HasPrefix(st.PodIP, "10.244.") || len(st.PodIPs) != 1 || st.PodIPs[0].IP != st.PodIP {
		t.Errorf("podIP %q podIPs %+v", st.PodIP, st.PodIPs)
	}
	if st.StartTime == nil {
		t.Error("no startTime")
	}
	if len(st.ContainerStatuses) != 1 {
		t.Fatalf("containerStatuses = %+v", st.ContainerStatuses)
	}
	cs := st.ContainerStatuses[0]
	if cs.State.Running == nil || cs.State.Running.StartedAt.IsZero() || !cs.Ready || cs.Started == nil || !*cs.Started || cs.RestartCount != 0 {
		t.Errorf("container status = %+v", cs)
	}
	if cs.Image != "docker.io/library/nginx:1.27" || !strings.HasPrefix(cs.ImageID, "docker.io/library/nginx@sha256:") ||
		!strings.HasPrefix(cs.ContainerID, "miniapi://") {
		t.Errorf("image %q imageID %q containerID %q", cs.Image, cs.ImageID, cs.ContainerID)
	}
}

// eventsFor waits until pod name has an event with each reason and
// returns them by reason.
func eventsFor(t *testing.T, s *harness.Server, name string, reasons []string) map[string]corev1.Event {
	t.Helper()
	c := s.Client()
	ctx := ctxFor(t)
	out := map[string]corev1.Event{}
	eventually(t, 10*time.Second, func() (bool, string) {
		l, err := c.CoreV1().Events("default").List(ctx, metav1.ListOptions{
			FieldSelector: fields.OneTermEqualSelector("involvedObject.name", name).String(),
		})
		if err != nil {
			// Field selectors on events may not be served; filter here.
			l, err = c.CoreV1().Events("default").List(ctx, metav1.ListOptions{})
			if err != nil {
				return false, err.Error()
			}
		}
		for _, e := range l.Items {
			if e.InvolvedObject.Name == name {
				out[e.Reason] = e
			}
		}
		for _, r := range reasons {
			if _, ok := out[r]; !ok {
				return false, fmt.Sprintf("no %s event for %s yet (have %v)", r, name, keys(out))
			}
		}
		return true, ""
	})
	return out
}

func keys(m map[string]corev1.Event) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
