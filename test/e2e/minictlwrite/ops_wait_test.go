package minictlwrite

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/miniapi/miniapi/test/e2e/harness"
)

// TestWaitMatchesKubectl: wait for conditions and jsonpath values, met at
// once, never met (the timeout), checked once (--timeout=0), and its
// argument errors, as kubectl prints them.
func TestWaitMatchesKubectl(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	for tool, ns := range map[string]string{"kubectl": nsK, "minictl": nsM} {
		s.MustRun(t, tool, "create", "deployment", "web", "-n", ns, "--image=nginx", "--replicas=2")
	}
	waitSettled(t, s, nsK, "web")
	waitSettled(t, s, nsM, "web")

	expectSame(t, s, "", "wait", "-n", "NS", "deploy/web", "--for=condition=Available")
	expectSame(t, s, "", "wait", "-n", "NS", "deployment", "web", "--for=condition=available=TRUE", "--timeout=0")
	expectSame(t, s, "", "wait", "-n", "NS", "deploy/web", "--for=jsonpath={.status.readyReplicas}=2")
	expectSame(t, s, "", "wait", "-n", "NS", "deploy/web", "--for=jsonpath={.status.readyReplicas}")
	expectSame(t, s, "", "wait", "-n", "NS", "deploy/web", "--for", `jsonpath={.status.conditions[?(@.type=="Available")].status}=True`)
	// Pod names end in random suffixes: masked.
	expectSameAllMasked(t, s, "wait", "-n", "NS", "pods", "-l", "app=web", "--for=condition=Ready")
	expectSameAllMasked(t, s, "wait", "-n", "NS", "pods", "--all", "--for=jsonpath={.status.phase}=Running", "-o", "name")
	expectSame(t, s, "", "wait", "-n", "NS", "deploy/web", "--for=create", "--for=condition=Available")
	expectSameAllMasked(t, s, "wait", "-n", "NS", "deploy/web", "--for=condition=Available", "-o", "yaml")
	expectSame(t, s, "", "wait", "-n", "NS", "deploy/nope", "--for=delete")

	// Not met: the timeout error, and exit 1.
	expectSameFails(t, s, "", "wait", "-n", "NS", "deploy/web", "--for=condition=Available=false", "--timeout=1s")
	expectSameFails(t, s, "", "wait", "-n", "NS", "deploy/web", "--for=jsonpath={.status.replicas}=7", "--timeout=1s")
	expectSameFails(t, s, "", "wait", "-n", "NS", "deploy/web", "--for=condition=Progressing=false", "--timeout=0")
	expectSameFails(t, s, "", "wait", "-n", "NS", "deploy/web", "--for=delete", "--timeout=0")
	expectSameFails(t, s, "", "wait", "-n", "NS", "cm/later", "--for=create", "--timeout=1s")

	for _, bad := range [][]string{
		{"deploy/web"},
		{"deploy/web", "--for=bogus"},
		{"--for=condition=Ready"},
		{"pods", "--for=condition=Ready"},
		{"pods", "-l", "app=none", "--for=condition=Ready"},
		{"deploy/nope", "--for=condition=Ready"},
		{"deploy/web", "--for=jsonpath={.status.conditions}=x"},
		{"deploy/web", "--for=jsonpath={.status.replicas}="},
		{"deploy/web", "--for=jsonpath={.status.replicas}=1=2"},
		{"deploy/web", "--for=jsonpath="},
		{"deploy/web", "--for=jsonpath={.status.replicas"},
		{"bogus/web", "--for=delete"},
	} {
		expectSameFails(t, s, "", append([]string{"wait", "-n", "NS"}, bad...)...)
	}
}

// TestWaitForDeleteAndCreate: waits that end because something happened —
// an object deleted, an object created — print "condition met" as kubectl
// does; a delete that does not come ends in kubectl's timeout error.
func TestWaitForDeleteAndCreate(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	tools := map[string]string{"kubectl": nsK, "minictl": nsM}
	for tool, ns := range tools {
		s.MustRun(t, tool, "create", "configmap", "gone", "-n", ns)
		s.MustRun(t, tool, "create", "configmap", "stays", "-n", ns)
	}

	// A missing object is fine for --for=delete, even once the time is up.
	k, m := both(s, "", "wait", "-n", "NS", "cm/stays", "cm/nope", "--for=delete", "--timeout=1s")
	if k.ExitCode != 1 || m.ExitCode != 1 || k.Stdout != normalize(m.Stdout) || withoutKlog(k.Stderr) != normalize(m.Stderr) {
		t.Errorf("delete timeout:\n=== kubectl %s\n=== minictl %s", k, m)
	}

	// The delete waits must have found their object (and be watching it)
	// before it goes, or they would have nothing to report; create waits
	// report the same whenever they start.
	base := watchesOpen(t, s)
	deletes := map[string]*harness.Proc{}
	for tool, ns := range tools {
		deletes[tool] = s.StartTool(t, tool, nil, "wait", "-n", ns, "cm/gone", "--for=delete", "--timeout=60s")
	}
	waitWatchesOpen(t, s, base+len(tools))
	creates := map[string]*harness.Proc{}
	for tool, ns := range tools {
		creates[tool] = s.StartTool(t, tool, nil, "wait", "-n", ns, "cm/later", "--for=create", "--timeout=60s")
	}
	for tool, ns := range tools {
		s.MustRun(t, tool, "delete", "configmap", "gone", "-n", ns)
		s.MustRun(t, tool, "create", "configmap", "later", "-n", ns)
	}
	for what, procs := range map[string]map[string]*harness.Proc{"delete": deletes, "create": creates} {
		k, m := procs["kubectl"].Wait(t, 60*time.Second), procs["minictl"].Wait(t, 60*time.Second)
		harness.SameResult(t, []string{"wait", "--for=" + what}, k, m)
		if k.ExitCode != 0 || !strings.HasSuffix(k.Stdout, " condition met\n") {
			t.Errorf("--for=%s: kubectl %s", what, k)
		}
	}
}

// watchesOpen reads the server's apiserver_watches_open gauge.
func watchesOpen(t *testing.T, s *harness.Server) int {
	t.Helper()
	raw, err := s.Client().CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(line, "apiserver_watches_open "); ok {
			n, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatal(err)
			}
			return int(n)
		}
	}
	t.Fatalf("no apiserver_watches_open in /metrics")
	return 0
}

// waitWatchesOpen waits until at least n watches are open.
func waitWatchesOpen(t *testing.T, s *harness.Server, n int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for watchesOpen(t, s) < n {
		if time.Now().After(deadline) {
			t.Fatalf("fewer than %d watches open after 30s", n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
