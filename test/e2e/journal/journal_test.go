// Package journal tests minictl journal against the real bin/miniapi: the
// reconcile passes the deployment and replicaset controllers make while
// kubectl creates a Deployment and scales it 3 → 5 → 1.
package journal

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/miniapi/miniapi/test/e2e/harness"
)

// waitReady waits until the deployment's status says every replica of
// the latest generation is ready and its pods number replicas.
func waitReady(t *testing.T, s *harness.Server, name string, replicas int32) {
	t.Helper()
	c := s.Client()
	ctx := context.Background()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		d, err := c.AppsV1().Deployments("default").Get(ctx, name, metav1.GetOptions{})
		if err == nil && d.Status.ObservedGeneration == d.Generation && d.Status.ReadyReplicas == replicas &&
			d.Status.UpdatedReplicas == replicas && d.Status.Replicas == replicas {
			pods, err := c.CoreV1().Pods("default").List(ctx, metav1.ListOptions{LabelSelector: "app=" + name})
			if err == nil && int32(len(pods.Items)) == replicas {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("deployment %s did not become ready at %d replicas", name, replicas)
}

// pass is one pass as minictl journal -o json prints it.
type pass struct {
	Seq        uint64
	Controller string
	Object     struct{ Kind, Namespace, Name string }
	Owner      *struct{ Kind, Name string }
	Desired    string
	Observed   string
	Action     string
	Writes     []struct{ Verb, Resource, Name, ResourceVersion string }
}

func journalJSON(t *testing.T, s *harness.Server, args ...string) []pass {
	t.Helper()
	out := s.MustRun(t, "minictl", append([]string{"journal"}, append(args, "-o", "json")...)...).Stdout
	var list struct {
		Kind  string
		Items []pass
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil || list.Kind != "List" {
		t.Fatalf("journal -o json: %v\n%s", err, out)
	}
	return list.Items
}

var podCount = regexp.MustCompile(`^(created|deleted) (\d+) pods$`)

// podActions sums the replicaset controller's "created N pods" and
// "deleted N pods" actions: how they are split into passes may vary.
func podActions(passes []pass) (created, deleted int) {
	for _, p := range passes {
		m := podCount.FindStringSubmatch(p.Action)
		if p.Controller != "replicaset" || m == nil {
			continue
		}
		n, _ := strconv.Atoi(m[2])
		if m[1] == "created" {
			created += n
		} else {
			deleted += n
		}
	}
	return created, deleted
}

func TestJournalOfAScaledDeployment(t *testing.T) {
	s := harness.Start(t, "--pod-ready-delay=0")
	s.MustRun(t, "kubectl", "create", "deployment", "web", "--image=nginx", "--replicas=3")
	waitReady(t, s, "web", 3)
	s.MustRun(t, "kubectl", "scale", "deploy", "web", "--replicas=5")
	waitReady(t, s, "web", 5)
	s.MustRun(t, "kubectl", "scale", "deploy", "web", "--replicas=1")
	waitReady(t, s, "web", 1)
	// Another deployment's passes must not show under deploy/web.
	s.MustRun(t, "kubectl", "create", "deployment", "other", "--image=nginx", "--replicas=1")
	waitReady(t, s, "other", 1)

	passes := journalJSON(t, s, "deploy/web")
	var createdRS bool
	scaledTo := map[string]bool{}
	for i, p := range passes {
		if i > 0 && p.Seq <= passes[i-1].Seq {
			t.Errorf("passes out of order: %d after %d", p.Seq, passes[i-1].Seq)
		}
		if strings.HasPrefix(p.Object.Name, "other") || p.Object.Namespace != "default" {
			t.Errorf("a pass over %s/%s shows under deploy/web", p.Object.Namespace, p.Object.Name)
		}
		switch p.Controller {
		case "deployment":
			if p.Object.Kind != "Deployment" || p.Object.Name != "web" {
				t.Errorf("deployment pass over %+v", p.Object)
			}
			if strings.HasPrefix(p.Action, "created new replicaset web-") && strings.HasSuffix(p.Action, "with 3 replicas") {
				createdRS = true
			}
			if strings.HasPrefix(p.Action, "scaled") {
				scaledTo[strings.Fields(p.Desired)[0]] = true
			}
		case "replicaset":
			if p.Object.Kind != "ReplicaSet" || !strings.HasPrefix(p.Object.Name, "web-") || p.Owner == nil || p.Owner.Name != "web" {
				t.Errorf("replicaset pass over %+v owned by %+v", p.Object, p.Owner)
			}
		}
	}
	if !createdRS || !scaledTo["5"] || !scaledTo["1"] {
		t.Errorf("want the deployment controller to create the ReplicaSet with 3 replicas (%v), then scale to 5 (%v) and to 1 (%v); passes:\n%s",
			createdRS, scaledTo["5"], scaledTo["1"], dump(passes))
	}
	if !wrotePods(passes) {
		t.Errorf("no replicaset pass records the pods it created with their resourceVersions:\n%s", dump(passes))
	}
	if created, deleted := podActions(passes); created != 5 || deleted != 4 {
		t.Errorf("the replicaset controller created %d pods and deleted %d, want 5 (3, then 2) and 4; passes:\n%s", created, deleted, dump(passes))
	}

	// The table: TIME CONTROLLER OBJECT DESIRED OBSERVED ACTION, one row
	// per pass.
	table := s.MustRun(t, "minictl", "journal", "deploy/web").Stdout
	lines := strings.Split(strings.TrimRight(table, "\n"), "\n")
	if got := strings.Fields(lines[0]); strings.Join(got, " ") != "TIME CONTROLLER OBJECT DESIRED OBSERVED ACTION" {
		t.Fatalf("header %q", lines[0])
	}
	if len(lines)-1 < len(passes) || !strings.Contains(table, "deployment/web") || !strings.Contains(table, "replicaset/web-") {
		t.Errorf("table of %d passes:\n%s", len(passes), table)
	}

	// -w prints the journal, then each new pass.
	w := s.StartTool(t, "minictl", nil, "journal", "deploy/web", "-w")
	w.WaitForOutput(t, "ACTION", 30*time.Second)
	printed := len(w.Stdout())
	s.MustRun(t, "kubectl", "scale", "deploy", "web", "--replicas=2")
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(w.Stdout()[printed:], "created 1 pods") {
		if time.Now().After(deadline) {
			t.Fatalf("journal -w printed no new pass creating a pod within 30s:\n%s", w.Stdout())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if r := w.Interrupt(t); r.ExitCode != 0 || strings.Count(r.Stdout, "ACTION") != 1 {
		t.Errorf("journal -w: %s", r)
	}
}

func TestJournalErrorsInKubectlWords(t *testing.T) {
	s := harness.Start(t, "--controllers=false")
	for _, tc := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"journal", "deploy/web", "-A"}, "error: a resource cannot be retrieved by name across all namespaces"},
		{[]string{"journal", "nosuchresource/x"}, `error: the server doesn't have a resource type "nosuchresource"`},
		{[]string{"journal", "-o", "wide"}, `error: unable to match a printer suitable for the output format "wide", allowed formats are: json,yaml`},
	} {
		r := s.Run("minictl", "", tc.args...)
		if r.ExitCode == 0 || strings.TrimSpace(r.Stderr) != tc.stderr {
			t.Errorf("minictl %v: exit %d, stderr %q; want %q", tc.args, r.ExitCode, r.Stderr, tc.stderr)
		}
	}
	// With no controllers there are no passes: a header-less "No
	// resources" is kubectl's, but the journal prints its empty table.
	if r := s.MustRun(t, "minictl", "journal", "-A"); !strings.HasPrefix(r.Stdout, "NAMESPACE") {
		t.Errorf("journal -A: %s", r)
	}
}

func TestJournalOff(t *testing.T) {
	s := harness.Start(t, "--controllers=false", "--journal-passes=0")
	r := s.Run("minictl", "", "journal")
	want := "Error from server (ServiceUnavailable): the reconcile journal is off (miniapi --journal-passes=0)"
	if r.ExitCode == 0 || strings.TrimSpace(r.Stderr) != want {
		t.Errorf("minictl journal: exit %d, stderr %q; want %q", r.ExitCode, r.Stderr, want)
	}
}

// wrotePods: some replicaset pass that created pods records as many pod
// creates, each with its resourceVersion.
func wrotePods(passes []pass) bool {
	for _, p := range passes {
		m := podCount.FindStringSubmatch(p.Action)
		if p.Controller != "replicaset" || m == nil || m[1] != "created" {
			continue
		}
		n, _ := strconv.Atoi(m[2])
		creates := 0
		for _, w := range p.Writes {
			if w.Verb == "create" && w.Resource == "pods" && w.ResourceVersion != "" {
				creates++
			}
		}
		if creates == n {
			return true
		}
	}
	return false
}

func dump(passes []pass) string {
	var b strings.Builder
	for _, p := range passes {
		fmt.Fprintf(&b, "%d %s %s/%s desired=%q observed=%q action=%q writes=%v\n", p.Seq, p.Controller, p.Object.Kind, p.Object.Name, p.Desired, p.Observed, p.Action, p.Writes)
	}
	return b.String()
}
