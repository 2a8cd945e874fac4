package minictlwrite

import (
	"context"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/miniapi/miniapi/test/e2e/harness"
)

// eventTables parses events output into tables with the LAST SEEN cells
// masked: they are ages, which move between the two runs.
func eventTables(out string) [][][]string {
	blocks := harness.Table(out)
	for _, rows := range blocks {
		if len(rows) == 0 {
			continue
		}
		for i, h := range rows[0] {
			if h != "LAST SEEN" {
				continue
			}
			for _, r := range rows[1:] {
				if i < len(r) {
					r[i] = "<age>"
				}
			}
		}
	}
	return blocks
}

// sameEvents fails unless both results agree on exit code and stderr, and
// print the same events table, LAST SEEN aside.
func sameEvents(t *testing.T, args []string, k, m harness.Result) {
	t.Helper()
	if k.ExitCode != m.ExitCode || k.Stderr != normalize(m.Stderr) || !reflect.DeepEqual(eventTables(k.Stdout), eventTables(m.Stdout)) {
		t.Errorf("%v: events differ\n=== kubectl %s\n=== minictl %s", args, k, m)
	}
}

// firstEvents is the start of `events --for deploy/web`: the repeated
// Warning first (its last time is the oldest), its message trimmed.
var firstEvents = regexp.MustCompile(`^LAST SEEN +TYPE +REASON +OBJECT +MESSAGE\n\d+s \(x3 over 60m\) +Warning +Flapping +Deployment/web +seen again\n\d+s +Normal +ScalingReplicaSet +Deployment/web +Scaled up`)

// TestEventsMatchesKubectl: after a deployment has rolled out, events (all
// of a namespace, for one object, by type, across namespaces, in each -o
// format) prints what kubectl prints; both tools read the same namespace.
func TestEventsMatchesKubectl(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	s.MustRun(t, "kubectl", "create", "deployment", "web", "-n", nsK, "--image=nginx", "--replicas=2")
	d := waitSettled(t, s, nsK, "web")
	pods, err := s.Client().CoreV1().Pods(nsK).List(context.Background(), metav1.ListOptions{LabelSelector: "app=web"})
	if err != nil {
		t.Fatal(err)
	}
	waitEvents(t, s, nsK, d, pods.Items)
	pod := "pod/" + pods.Items[0].Name
	// A repeated Warning seen first an hour ago and last a minute ago: it
	// sorts by its last time, and shows its count.
	now := time.Now()
	_, err = s.Client().CoreV1().Events(nsK).Create(context.Background(), &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Name: "web.repeated"},
		InvolvedObject: corev1.ObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Namespace: nsK, Name: "web", UID: d.UID},
		Type:           corev1.EventTypeWarning,
		Reason:         "Flapping",
		Message:        "seen again\n",
		FirstTimestamp: metav1.NewTime(now.Add(-time.Hour)),
		LastTimestamp:  metav1.NewTime(now.Add(-time.Minute)),
		Count:          3,
		Source:         corev1.EventSource{Component: "e2e"},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}

	for _, args := range [][]string{
		{"events", "-n", nsK},
		{"events", "-n", nsK, "--for", "deploy/web"},
		{"events", "-n", nsK, "--for", pod},
		{"events", "-n", nsK, "--for", pod, "--types=normal", "--no-headers"},
		{"events", "-n", nsK, "--types=Warning"},
		{"events", "-A", "--types=Normal,Warning"},
	} {
		k, m := s.Both("", args...)
		sameEvents(t, args, k, m)
		if k.ExitCode != 0 || strings.Count(k.Stdout, "\n") < 2 {
			t.Errorf("%v: kubectl printed no events: %s", args, k)
		}
	}
	k, _ := s.Both("", "events", "-n", nsK, "--for", "deploy/web")
	if !firstEvents.MatchString(k.Stdout) {
		t.Errorf("unexpected layout or order: %s", k)
	}

	// Whole objects print the same bytes: both tools read the same events.
	for _, o := range []string{"json", "yaml", "name", "jsonpath={.items[*].reason}"} {
		s.ExpectSame(t, "events", "-n", nsK, "--for", "deploy/web", "-o", o)
	}
	s.ExpectSame(t, "events", "-n", nsK, "--for", pod, "--types=Warning")
	s.ExpectSame(t, "events", "-n", "nothing-here")
	for _, bad := range [][]string{
		{"--types=Bad"},
		{"--for", "web"},
		{"--for", "bogus/web"},
		{"--for", "a/b/c"},
	} {
		if r := s.ExpectSame(t, append([]string{"events", "-n", nsK}, bad...)...); r.ExitCode == 0 {
			t.Errorf("events %v: kubectl exited 0", bad)
		}
	}
}

// TestEventsWatchMatchesKubectl: events --watch prints the events there
// are, then new ones as they come, in kubectl's table (or one object per
// event for -o name), and ends with status 1 on Ctrl-C.
func TestEventsWatchMatchesKubectl(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	s.MustRun(t, "kubectl", "create", "deployment", "web", "-n", nsK, "--image=nginx", "--replicas=1")
	waitSettled(t, s, nsK, "web")

	formats := map[string][]string{"table": nil, "name": {"-o", "name"}}
	firstLine := map[string]string{"table": "Deployment/web", "name": "event/web."}
	procs := map[string]map[string]*harness.Proc{}
	for f, extra := range formats {
		procs[f] = map[string]*harness.Proc{}
		for _, tool := range []string{"kubectl", "minictl"} {
			args := append([]string{"events", "-n", nsK, "--for", "deploy/web", "-w"}, extra...)
			procs[f][tool] = s.StartTool(t, tool, nil, args...)
		}
	}
	for f, byTool := range procs {
		for _, p := range byTool {
			p.WaitForOutput(t, firstLine[f], 30*time.Second)
		}
	}
	s.MustRun(t, "kubectl", "scale", "deploy/web", "-n", nsK, "--replicas=2")
	for _, p := range procs["table"] {
		p.WaitForOutput(t, "from 1 to 2", 30*time.Second)
	}
	for _, p := range procs["name"] {
		waitForNames(t, p, 2)
	}
	for f, byTool := range procs {
		k, m := byTool["kubectl"].Interrupt(t), byTool["minictl"].Interrupt(t)
		if k.ExitCode != 1 || m.ExitCode != 1 || m.Stderr != "" {
			t.Errorf("%s: after Ctrl-C: kubectl %s, minictl %s", f, k, m)
		}
		if f == "table" {
			sameEvents(t, []string{"events", "-w"}, k, m)
			continue
		}
		harness.SameResult(t, []string{"events", "-w", "-o", "name"}, k, m)
	}
}

// waitForNames waits until a watch has printed n lines.
func waitForNames(t *testing.T, p *harness.Proc, n int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for strings.Count(p.Stdout(), "\n") < n {
		if time.Now().After(deadline) {
			t.Fatalf("fewer than %d lines after 30s:\n%s", n, p.Stdout())
		}
		time.Sleep(20 * time.Millisecond)
	}
}
