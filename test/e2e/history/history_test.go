// Package history tests minictl history against the real bin/miniapi:
// every kept revision of a Deployment that kubectl created and scaled,
// with its writer (kubectl, the controllers) and its changed fields.
package history

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/miniapi/miniapi/test/e2e/harness"
)

// waitReady waits until the deployment's status says every replica of
// the latest generation is ready.
func waitReady(t *testing.T, s *harness.Server, name string, replicas int32) {
	t.Helper()
	c := s.Client()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		d, err := c.AppsV1().Deployments("default").Get(context.Background(), name, metav1.GetOptions{})
		if err == nil && d.Status.ObservedGeneration == d.Generation && d.Status.ReadyReplicas == replicas &&
			d.Status.UpdatedReplicas == replicas && d.Status.Replicas == replicas {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("deployment %s did not become ready at %d replicas", name, replicas)
}

// historyRow is one line of minictl history's table.
type historyRow struct{ revision, age, manager, change string }

// parseTable reads the REVISION AGE MANAGER CHANGE table by its header's
// column starts (CHANGE is the rest of the line).
func parseTable(t *testing.T, out string) []historyRow {
	t.Helper()
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	header := lines[0]
	starts := []int{0, strings.Index(header, "AGE"), strings.Index(header, "MANAGER"), strings.Index(header, "CHANGE")}
	if !strings.HasPrefix(header, "REVISION") || starts[1] < 0 || starts[2] < 0 || starts[3] < 0 {
		t.Fatalf("header %q", header)
	}
	cell := func(line string, i int) string {
		end := len(line)
		if i+1 < len(starts) {
			end = min(starts[i+1], len(line))
		}
		return strings.TrimSpace(line[starts[i]:end])
	}
	var rows []historyRow
	for _, l := range lines[1:] {
		rows = append(rows, historyRow{cell(l, 0), cell(l, 1), cell(l, 2), cell(l, 3)})
	}
	return rows
}

func TestHistoryOfScaledDeployment(t *testing.T) {
	s := harness.Start(t, "--pod-ready-delay=0")
	s.MustRun(t, "kubectl", "create", "deployment", "web", "--image=nginx", "--replicas=3")
	waitReady(t, s, "web", 3)
	s.MustRun(t, "kubectl", "scale", "deploy", "web", "--replicas=5")
	waitReady(t, s, "web", 5)

	out := s.MustRun(t, "minictl", "history", "deploy/web").Stdout
	rows := parseTable(t, out)
	if len(rows) < 3 {
		t.Fatalf("too few rows:\n%s", out)
	}
	first := rows[0]
	if first.manager != "kubectl-create" || first.change != "created" || first.age == "" || first.age == "<unknown>" {
		t.Errorf("first row %+v\n%s", first, out)
	}
	// kubectl scale sends no fieldManager: its User-Agent's product,
	// "kubectl", names it (on kube-apiserver as here), through the scale
	// subresource.
	var scaled, status bool
	for _, r := range rows {
		if strings.Contains(r.change, "spec.replicas: 3 → 5") {
			scaled = true
			if r.manager != "kubectl" {
				t.Errorf("the scale's manager is %q, want kubectl\n%s", r.manager, out)
			}
		}
		if r.manager == "kube-controller-manager" && strings.Contains(r.change, "status.") {
			status = true
		}
	}
	if !scaled || !status {
		t.Errorf("want a spec.replicas: 3 → 5 row by kubectl and status rows by kube-controller-manager:\n%s", out)
	}

	// --revision prints the object as it was, in get -o yaml's form.
	old := s.MustRun(t, "minictl", "history", "deploy/web", "--revision="+first.revision).Stdout
	var obj struct {
		Kind     string
		Metadata map[string]any
		Spec     struct{ Replicas int }
	}
	if err := yaml.Unmarshal([]byte(old), &obj); err != nil {
		t.Fatalf("%v:\n%s", err, old)
	}
	if obj.Kind != "Deployment" || obj.Spec.Replicas != 3 || obj.Metadata["resourceVersion"] != first.revision || obj.Metadata["managedFields"] != nil {
		t.Errorf("revision %s:\n%s", first.revision, old)
	}

	// -o json is the whole history as a List.
	js := s.MustRun(t, "minictl", "history", "deployment.apps/web", "-o", "json").Stdout
	var list struct {
		Kind  string
		Items []struct {
			Revision string
			Manager  string
			Changes  []string
			Object   struct{ Spec struct{ Replicas int } }
		}
	}
	if err := json.Unmarshal([]byte(js), &list); err != nil {
		t.Fatalf("%v:\n%s", err, js)
	}
	if list.Kind != "List" || len(list.Items) != len(rows) || list.Items[0].Revision != first.revision ||
		list.Items[len(list.Items)-1].Object.Spec.Replicas != 5 {
		t.Errorf("-o json:\n%s", js)
	}

	// -w prints the history, then each revision as it is written.
	w := s.StartTool(t, "minictl", nil, "history", "deploy/web", "-w")
	w.WaitForOutput(t, "spec.replicas: 3 → 5", 30*time.Second)
	s.MustRun(t, "kubectl", "scale", "deploy", "web", "--replicas=2")
	w.WaitForOutput(t, "spec.replicas: 5 → 2", 30*time.Second)
	if r := w.Interrupt(t); r.ExitCode != 0 || strings.Count(r.Stdout, "REVISION") != 1 || strings.Count(r.Stdout, "spec.replicas: 3 → 5") != 1 {
		t.Errorf("history -w: %s", r)
	}
}

func TestHistoryErrorsInKubectlWords(t *testing.T) {
	s := harness.Start(t, "--controllers=false")
	s.MustRun(t, "kubectl", "create", "configmap", "cfg", "--from-literal=a=1")
	for _, tc := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"history", "deploy/nope"}, `Error from server (NotFound): deployments.apps "nope" not found`},
		{[]string{"history", "nosuchresource/x"}, `error: the server doesn't have a resource type "nosuchresource"`},
		{[]string{"history", "cm/cfg", "--revision=1"}, "error: revision 1 is not in the kept history of configmap/cfg"},
		{[]string{"history", "cm/cfg", "-o", "wide"}, `error: unable to match a printer suitable for the output format "wide", allowed formats are: json,yaml`},
		{[]string{"history", "cm/cfg", "-n", "kube-system"}, `Error from server (NotFound): configmaps "cfg" not found`},
	} {
		r := s.Run("minictl", "", tc.args...)
		if r.ExitCode != 1 || strings.TrimSpace(r.Stderr) != tc.stderr {
			t.Errorf("%v: %s\nwant stderr %q", tc.args, r, tc.stderr)
		}
	}
	// A namespace given with -n, and TYPE NAME as two arguments.
	r := s.MustRun(t, "minictl", "history", "configmap", "cfg", "-n", "default")
	if rows := parseTable(t, r.Stdout); len(rows) != 1 || rows[0].manager != "kubectl-create" || rows[0].change != "created" {
		t.Errorf("configmap history:\n%s", r.Stdout)
	}
}
