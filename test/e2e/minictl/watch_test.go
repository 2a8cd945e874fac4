package minictl

import (
	"strings"
	"testing"
	"time"

	"github.com/miniapi/miniapi/test/e2e/harness"
)

// TestSeedExercise is the classic exercise, run with both tools at once:
// print generation and observedGeneration, watch the ReplicaSets, scale to
// 5, see the rows arrive, Ctrl-C the watches.
func TestSeedExercise(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	s.MustRun(t, "kubectl", "create", "deployment", "web", "--image=nginx", "--replicas=3")
	waitSettled(t, s, "web", 3)

	gen := []string{"get", "deploy", "web", "-o", "jsonpath={.metadata.generation} {.status.observedGeneration}"}
	if k := s.ExpectSame(t, gen...); k.Stdout != "1 1" {
		t.Errorf("generation before scaling: %q, want \"1 1\"", k.Stdout)
	}

	watches := map[string]*harness.Proc{}
	for _, tool := range []string{"kubectl", "minictl"} {
		watches[tool] = s.StartTool(t, tool, nil, "get", "rs", "-l", "app=web", "-w")
	}
	for _, w := range watches {
		w.WaitForOutput(t, "NAME ", 30*time.Second)
		w.WaitForOutput(t, "\nweb-", 30*time.Second)
	}

	m := s.MustRun(t, "minictl", "scale", "deployment/web", "--replicas=5")
	if m.Stdout != "deployment.apps/web scaled\n" || m.Stderr != "" {
		t.Errorf("minictl scale: %s", m)
	}
	waitSettled(t, s, "web", 5)
	if k := s.ExpectSame(t, gen...); k.Stdout != "2 2" {
		t.Errorf("generation after scaling: %q, want \"2 2\"", k.Stdout)
	}
	// Scaling to the current size still says "scaled".
	s.ExpectSame(t, "scale", "deploy", "web", "--replicas=5")

	// Rows are printed as events arrive: the watch shows 5 ready replicas
	// while it is still running.
	ready := regexpRow("web-", "5", "5", "5")
	for tool, w := range watches {
		waitForRow(t, w, ready, tool)
	}
	waitQuiet(t, s)
	waitSameLineCount(watches["kubectl"], watches["minictl"])
	k := watches["kubectl"].Interrupt(t)
	mres := watches["minictl"].Interrupt(t)
	if mres.ExitCode != k.ExitCode || mres.Stderr != "" {
		t.Errorf("Ctrl-C: kubectl exit %d, minictl %s", k.ExitCode, mres)
	}
	harness.SameTable(t, []string{"get", "rs", "-w"}, k, mres)
	if rows := strings.Count(mres.Stdout, "\n"); rows < 3 {
		t.Errorf("watch printed %d lines, want the header, the first row and the scaling rows:\n%s", rows, mres.Stdout)
	}
}

// regexpRow is a matcher for a table row: a name prefix, then cells.
func regexpRow(prefix string, cells ...string) func(string) bool {
	return func(line string) bool {
		f := strings.Fields(line)
		if len(f) < len(cells)+1 || !strings.HasPrefix(f[0], prefix) {
			return false
		}
		for i, c := range cells {
			if f[i+1] != c {
				return false
			}
		}
		return true
	}
}

func waitForRow(t *testing.T, p *harness.Proc, match func(string) bool, who string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		for _, l := range strings.Split(p.Stdout(), "\n") {
			if match(l) {
				return
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("%s: no matching row within 30s:\n%s", who, p.Stdout())
}

// waitSameLineCount waits, up to 30s, until a and b have printed as many
// lines as each other and neither has printed more for 300 ms. Call it
// after waitQuiet, when no event is still on its way.
func waitSameLineCount(a, b *harness.Proc) {
	deadline := time.Now().Add(30 * time.Second)
	lines := func() (int, int) { return strings.Count(a.Stdout(), "\n"), strings.Count(b.Stdout(), "\n") }
	la, lb := lines()
	since := time.Now()
	for time.Now().Before(deadline) && (la != lb || time.Since(since) < 300*time.Millisecond) {
		time.Sleep(20 * time.Millisecond)
		if na, nb := lines(); na != la || nb != lb {
			la, lb, since = na, nb, time.Now()
		}
	}
}

// TestWatchSurvivesServerRestart: a minictl watch keeps printing after the
// server stops and starts again (kubectl would exit), and Ctrl-C ends it
// with kubectl's status and nothing on stderr.
func TestWatchSurvivesServerRestart(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	s.MustRun(t, "kubectl", "create", "deployment", "web", "--image=nginx", "--replicas=1")
	waitSettled(t, s, "web", 1)

	table := s.StartTool(t, "minictl", nil, "get", "deploy", "web", "-w")
	names := s.StartTool(t, "minictl", nil, "get", "deploy", "--watch", "-o", "name")
	table.WaitForOutput(t, "\nweb ", 30*time.Second)
	names.WaitForOutput(t, "deployment.apps/web\n", 30*time.Second)

	s.Restart()
	s.MustRun(t, "kubectl", "scale", "deploy", "web", "--replicas=2")
	waitSettled(t, s, "web", 2)

	waitForRow(t, table, regexpRow("web", "2/2", "2", "2"), "table watch")
	waitForLines(t, names, "deployment.apps/web", 2)
	for _, p := range []*harness.Proc{table, names} {
		r := p.Interrupt(t)
		if r.ExitCode != 1 || r.Stderr != "" {
			t.Errorf("after Ctrl-C: %s", r)
		}
	}
	// The header was printed once, before the restart.
	if r := table.Stdout(); strings.Count(r, "NAME") != 1 {
		t.Errorf("header repeated:\n%s", r)
	}
}

func waitForLines(t *testing.T, p *harness.Proc, line string, n int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for strings.Count(p.Stdout(), line+"\n") < n+1 {
		if time.Now().After(deadline) {
			t.Fatalf("want more than %d lines %q after the restart, got:\n%s", n, line, p.Stdout())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestWatchOnlyAndEvents compares --watch-only and --output-watch-events
// with kubectl while a deployment scales down.
func TestWatchOnlyAndEvents(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	s.MustRun(t, "kubectl", "create", "deployment", "web", "--image=nginx", "--replicas=2")
	waitSettled(t, s, "web", 2)

	// Through a recording proxy, to know when every watch has started.
	rec := &recorder{}
	proxy := rec.start(t, s.URL)
	argsList := [][]string{
		{"--server", proxy.URL, "get", "deploy", "--watch-only", "--output-watch-events"},
		{"--server", proxy.URL, "get", "deploy", "web", "-w", "-o", "jsonpath={.spec.replicas}{\"\\n\"}"},
	}
	procs := map[string][]*harness.Proc{}
	for _, tool := range []string{"kubectl", "minictl"} {
		for _, args := range argsList {
			procs[tool] = append(procs[tool], s.StartTool(t, tool, nil, args...))
		}
		procs[tool][1].WaitForOutput(t, "2\n", 30*time.Second)
	}
	deadline := time.Now().Add(30 * time.Second)
	for strings.Count(rec.peek(), "watch=true") < 4 {
		if time.Now().After(deadline) {
			t.Fatalf("the four watches did not start:\n%s", rec.peek())
		}
		time.Sleep(20 * time.Millisecond)
	}
	s.MustRun(t, "kubectl", "scale", "deploy", "web", "--replicas=1")
	waitSettled(t, s, "web", 1)
	waitQuiet(t, s)
	for _, tool := range []string{"kubectl", "minictl"} {
		waitForRow(t, procs[tool][0], regexpRow("MODIFIED", "web", "1/1"), tool+" watch-only")
		procs[tool][1].WaitForOutput(t, "1\n", 30*time.Second)
	}
	for i, args := range argsList {
		waitSameLineCount(procs["kubectl"][i], procs["minictl"][i])
		k := procs["kubectl"][i].Interrupt(t)
		m := procs["minictl"][i].Interrupt(t)
		if i == 0 {
			harness.SameTable(t, args, k, m)
		} else {
			harness.SameResult(t, args, k, m)
		}
	}
}
