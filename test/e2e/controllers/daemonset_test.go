package controllers

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/miniapi/miniapi/test/e2e/harness"
)

// dsYAML is the reference's ds.yaml (section 7).
const dsYAML = `apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: agent
spec:
  selector:
    matchLabels:
      app: agent
  template:
    metadata:
      labels:
        app: agent
    spec:
      containers:
      - name: agent
        image: busybox
        command: ["sleep", "3600"]
`

// daemonPodsSettled: one live, Ready pod of image on each of nodes nodes,
// and a status that says so.
func daemonPodsSettled(t *testing.T, c kubernetes.Interface, image string, nodes int) func() (bool, string) {
	return func() (bool, string) {
		pods := livePods(t, c, "agent")
		perNode := map[string]int{}
		for _, p := range pods {
			if !isReady(&p) || p.Spec.Containers[0].Image != image {
				return false, fmt.Sprintf("pod %s ready=%v image %s", p.Name, isReady(&p), p.Spec.Containers[0].Image)
			}
			perNode[p.Spec.NodeName]++
		}
		if len(pods) != nodes || len(perNode) != nodes || perNode[""] != 0 {
			return false, fmt.Sprintf("%d pods on nodes %v", len(pods), perNode)
		}
		ds, err := c.AppsV1().DaemonSets(ns).Get(context.Background(), "agent", metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		s := ds.Status
		n := int32(nodes)
		if s.ObservedGeneration != ds.Generation || s.DesiredNumberScheduled != n || s.NumberReady != n || s.UpdatedNumberScheduled != n || s.NumberAvailable != n {
			return false, fmt.Sprintf("status %+v", s)
		}
		return true, ""
	}
}

func runOK(t *testing.T, s *harness.Server, stdin string, args ...string) harness.Result {
	t.Helper()
	r := s.Run("kubectl", stdin, args...)
	if r.ExitCode != 0 {
		t.Fatalf("kubectl %v: %s", args, r)
	}
	return r
}

// With three nodes a DaemonSet runs one Ready pod on each; kubectl get
// and rollout status read it; a new image rolls every pod.
func TestDaemonSetOnePodPerNodeAndRollout(t *testing.T) {
	s, c := start(t, "--nodes=3")
	if r := runOK(t, s, dsYAML, "apply", "-f", "-"); r.Stdout != "daemonset.apps/agent created\n" {
		t.Errorf("apply: %q", r.Stdout)
	}
	eventually(t, 60*time.Second, "3 Ready daemon pods, one per node", daemonPodsSettled(t, c, "busybox", 3))
	r := runOK(t, s, "", "rollout", "status", "ds/agent", "--timeout=60s")
	if !strings.Contains(r.Stdout, `daemon set "agent" successfully rolled out`) {
		t.Errorf("rollout status: %q", r.Stdout)
	}
	table := runOK(t, s, "", "get", "ds")
	lines := strings.Split(strings.TrimRight(table.Stdout, "\n"), "\n")
	if len(lines) != 2 || lines[0] != "NAME    DESIRED   CURRENT   READY   UP-TO-DATE   AVAILABLE   NODE SELECTOR   AGE" ||
		strings.Join(strings.Fields(lines[1])[:7], " ") != "agent 3 3 3 3 3 <none>" {
		t.Errorf("kubectl get ds:\n%s", table.Stdout)
	}
	wide := runOK(t, s, "", "get", "ds", "-o", "wide")
	if f := strings.Fields(strings.Split(wide.Stdout, "\n")[1]); len(f) != 11 || strings.Join(f[8:], " ") != "agent busybox app=agent" {
		t.Errorf("kubectl get ds -o wide:\n%s", wide.Stdout)
	}
	ds, err := c.AppsV1().DaemonSets(ns).Get(context.Background(), "agent", metav1.GetOptions{})
	if err != nil || ds.Annotations["deprecated.daemonset.template.generation"] != "1" {
		t.Fatalf("daemonset %v: annotations %v", err, ds.Annotations)
	}

	runOK(t, s, "", "set", "image", "ds/agent", "agent=busybox:2")
	r = runOK(t, s, "", "rollout", "status", "ds/agent", "--timeout=60s")
	if !strings.Contains(r.Stdout, `daemon set "agent" successfully rolled out`) {
		t.Errorf("rollout status after set image: %q", r.Stdout)
	}
	eventually(t, 60*time.Second, "3 Ready pods of busybox:2", daemonPodsSettled(t, c, "busybox:2", 3))
	for _, p := range livePods(t, c, "agent") {
		if p.Labels["pod-template-generation"] != "2" || p.Labels["controller-revision-hash"] == "" {
			t.Errorf("pod %s labels %v", p.Name, p.Labels)
		}
	}
	revs := runOK(t, s, "", "get", "controllerrevisions", "-l", "app=agent")
	rows := strings.Split(strings.TrimRight(revs.Stdout, "\n"), "\n")
	if len(rows) != 3 || strings.Join(strings.Fields(rows[0]), " ") != "NAME CONTROLLER REVISION AGE" ||
		!strings.Contains(revs.Stdout, "daemonset.apps/agent   1") || !strings.Contains(revs.Stdout, "daemonset.apps/agent   2") {
		t.Errorf("kubectl get controllerrevisions:\n%s", revs.Stdout)
	}
}

// The reference's three refused patches, word for word.
func TestDaemonSetValidationErrors(t *testing.T) {
	s, _ := start(t, "--nodes=1")
	runOK(t, s, dsYAML, "apply", "-f", "-")
	for _, tc := range []struct{ patch, want string }{
		{`{"spec":{"selector":{"matchLabels":{"app":"other"}}}}`, "The DaemonSet \"agent\" is invalid: \n" +
			"* spec.selector: Invalid value: {\"matchLabels\":{\"app\":\"other\"}}: field is immutable\n" +
			"* spec.template.metadata.labels: Invalid value: {\"app\":\"agent\"}: `selector` does not match template `labels`\n"},
		{`{"spec":{"template":{"spec":{"restartPolicy":"OnFailure"}}}}`,
			"The DaemonSet \"agent\" is invalid: spec.template.spec.restartPolicy: Unsupported value: \"OnFailure\": supported values: \"Always\"\n"},
		{`{"spec":{"updateStrategy":{"type":"Recreate"}}}`,
			"The DaemonSet \"agent\" is invalid: spec.updateStrategy: Unsupported value: {\"Type\":\"Recreate\",\"RollingUpdate\":{\"MaxUnavailable\":1,\"MaxSurge\":0}}: supported values: \"RollingUpdate\", \"OnDelete\"\n"},
	} {
		r := s.Run("kubectl", "", "patch", "ds", "agent", "--type=merge", "-p", tc.patch)
		if r.ExitCode != 1 || r.Stdout != "" || r.Stderr != tc.want {
			t.Errorf("patch %s: %s\nwant stderr %q", tc.patch, r, tc.want)
		}
	}
}
