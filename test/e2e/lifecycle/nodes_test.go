package lifecycle

import (
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/miniapi/miniapi/test/e2e/harness"
)

// --nodes=2 gives exactly two Ready nodes that look like a kubelet's.
func TestNodesExistAndAreReady(t *testing.T) {
	t.Parallel()
	s := harness.Start(t, "--nodes=2")
	c := s.Client()
	nodes := readyNodes(t, c, 2)
	for i, n := range nodes {
		name := fmt.Sprintf("miniapi-node-%d", i+1)
		if n.Name != name {
			t.Errorf("node %d is %q, want %q", i, n.Name, name)
		}
		for k, v := range map[string]string{"kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64"} {
			if n.Labels[k] != v {
				t.Errorf("%s: label %s=%q, want %q", n.Name, k, n.Labels[k], v)
			}
		}
		for k := range n.Labels {
			if len(k) > 24 && k[:24] == "node-role.kubernetes.io/" {
				t.Errorf("%s has role label %s", n.Name, k)
			}
		}
		st := n.Status
		for _, cond := range st.Conditions {
			want := corev1.ConditionFalse
			if cond.Type == corev1.NodeReady {
				want = corev1.ConditionTrue
				if cond.Reason != "KubeletReady" || cond.Message != "kubelet is posting ready status" {
					t.Errorf("%s Ready: reason %q message %q", n.Name, cond.Reason, cond.Message)
				}
			}
			if cond.Status != want {
				t.Errorf("%s: condition %s=%s, want %s", n.Name, cond.Type, cond.Status, want)
			}
		}
		if len(st.Conditions) != 4 {
			t.Errorf("%s has %d conditions, want MemoryPressure, DiskPressure, PIDPressure, Ready", n.Name, len(st.Conditions))
		}
		if q := st.Allocatable[corev1.ResourcePods]; q.Value() != 110 {
			t.Errorf("%s allocatable pods = %s", n.Name, q.String())
		}
		if _, ok := st.Capacity[corev1.ResourceCPU]; !ok {
			t.Errorf("%s has no cpu capacity", n.Name)
		}
		if st.NodeInfo.KubeletVersion != "v1.37.2" || st.NodeInfo.ContainerRuntimeVersion == "" || st.NodeInfo.OSImage == "" {
			t.Errorf("%s nodeInfo = %+v", n.Name, st.NodeInfo)
		}
		wantAddr := []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: fmt.Sprintf("10.0.0.%d", i+1)}, {Type: corev1.NodeHostName, Address: name}}
		if len(st.Addresses) != 2 || st.Addresses[0] != wantAddr[0] || st.Addresses[1] != wantAddr[1] {
			t.Errorf("%s addresses = %+v, want %+v", n.Name, st.Addresses, wantAddr)
		}
	}
	out := s.Run("kubectl", "", "get", "nodes")
	if out.ExitCode != 0 {
		t.Fatalf("kubectl get nodes: %s", out)
	}
	tbl := harness.Table(out.Stdout)
	if len(tbl) != 1 || len(tbl[0]) != 3 || tbl[0][1][1] != "Ready" || tbl[0][2][1] != "Ready" {
		t.Errorf("kubectl get nodes printed:\n%s", out.Stdout)
	}
}

// Restarting with fewer --nodes removes the surplus simulated nodes, and
// the pods bound to them are replaced on the nodes that remain.
func TestFewerNodesAfterRestart(t *testing.T) {
	t.Parallel()
	s := harness.Start(t, "--nodes=3", "--pod-ready-delay=0")
	c := s.Client()
	ctx := ctxFor(t)
	readyNodes(t, c, 3)
	running(t, c, "spread", 6)
	s.RestartWith("--nodes=2")
	readyNodes(t, c, 2)
	eventually(t, 20*time.Second, func() (bool, string) {
		l, err := c.CoreV1().Pods("default").List(ctx, metav1.ListOptions{LabelSelector: "app=spread"})
		if err != nil {
			return false, err.Error()
		}
		ready, onGone := 0, 0
		for i := range l.Items {
			p := &l.Items[i]
			if p.Spec.NodeName == "miniapi-node-3" {
				onGone++
			} else if podReady(p) {
				ready++
			}
		}
		return len(l.Items) == 6 && ready == 6 && onGone == 0,
			fmt.Sprintf("%d pods, %d ready on live nodes, %d still on miniapi-node-3", len(l.Items), ready, onGone)
	})
}
