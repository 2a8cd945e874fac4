// Package python proves that the official Kubernetes Python client (Debian's
// python3-kubernetes, run by /usr/bin/python3) works against a real
// bin/miniapi unchanged.
package python

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/miniapi/miniapi/test/e2e/harness"
)

// python is Debian's interpreter, which python3-kubernetes installs for
// (not whichever python3 is first on PATH).
const python = "/usr/bin/python3"

// requireClient skips the test when the Python client is not installed,
// unless CI is set: CI installs it (.ci/run), so there its absence fails.
func requireClient(t *testing.T) {
	t.Helper()
	out, err := exec.Command(python, "-c", "import kubernetes").CombinedOutput()
	if err == nil {
		return
	}
	msg := "the Python Kubernetes client is missing (" + python + " -c 'import kubernetes': " +
		strings.TrimSpace(string(out)) + "); install it with: apt-get install python3-kubernetes"
	if os.Getenv("CI") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

// TestWatchStream runs watch.Watch().stream(list_namespaced_config_map)
// (which sends ?watch=True) while the test creates, updates and deletes
// ConfigMaps, and checks the script saw each event in order.
func TestWatchStream(t *testing.T) {
	requireClient(t)
	s := harness.Start(t, "--controllers=false")
	c := s.Client()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const ns = "py-watch"
	if _, err := c.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	cms := c.CoreV1().ConfigMaps(ns)
	configMap := func(name, v string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: map[string]string{"v": v}}
	}
	// first exists before the watch starts, so its ADDED (the watch's
	// initial state) says the watch is open.
	first, err := cms.Create(ctx, configMap("first", "1"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}

	w := startScript(ctx, t, s.Kubeconfig, ns, "second", 60)
	w.expect(t, "ADDED first v=1")
	first.Data["v"] = "2"
	if _, err := cms.Update(ctx, first, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	w.expect(t, "MODIFIED first v=2")
	if _, err := cms.Create(ctx, configMap("second", "1"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	w.expect(t, "ADDED second v=1")
	for _, name := range []string{"first", "second"} {
		if err := cms.Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	w.expect(t, "DELETED first v=2")
	w.expect(t, "DELETED second v=1")
	w.wait(t)
}

// script is the running watch_configmaps.py.
type script struct {
	cmd    *exec.Cmd
	lines  chan string // closed when its stdout ends
	stderr *strings.Builder
	// started is when the script ran, for the figures the test logs.
	started time.Time
}

// startScript runs testdata/watch_configmaps.py; its stdout is read line
// by line by a goroutine that ends when the script's stdout closes.
func startScript(ctx context.Context, t *testing.T, kubeconfig, ns, stopName string, timeoutSeconds int) *script {
	t.Helper()
	cmd := exec.CommandContext(ctx, python, "testdata/watch_configmaps.py", kubeconfig, ns, stopName, strconv.Itoa(timeoutSeconds))
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	sc := &script{cmd: cmd, lines: make(chan string, 16), stderr: new(strings.Builder), started: time.Now()}
	cmd.Stderr = sc.stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", python, err)
	}
	go func() {
		defer close(sc.lines)
		scanner := bufio.NewScanner(stdout)
		for scanner.Scan() {
			sc.lines <- scanner.Text()
		}
	}()
	t.Cleanup(func() { sc.stop() })
	return sc
}

// expect waits for the script's next line and fails unless it is want.
func (sc *script) expect(t *testing.T, want string) {
	t.Helper()
	select {
	case line, ok := <-sc.lines:
		if !ok {
			t.Fatalf("the script ended before printing %q: %s", want, sc.stop())
		}
		if line != want {
			t.Fatalf("the script printed %q; want %q\n%s", line, want, sc.stop())
		}
		t.Logf("%-18s %s after the script started", line, time.Since(sc.started).Round(time.Millisecond))
	case <-time.After(30 * time.Second):
		t.Fatalf("the script printed nothing within 30s; want %q\n%s", want, sc.stop())
	}
}

// stop kills the script if it still runs and returns how it ended and
// what it wrote on stderr (read only once it has exited).
func (sc *script) stop() string {
	if sc.cmd.ProcessState == nil {
		_ = sc.cmd.Process.Kill()
		_ = sc.cmd.Wait()
	}
	return sc.cmd.ProcessState.String() + "\n" + sc.stderr.String()
}

// wait checks that the script prints nothing more and exits 0.
func (sc *script) wait(t *testing.T) {
	t.Helper()
	for line := range sc.lines {
		t.Errorf("the script printed %q after its last expected line", line)
	}
	if err := sc.cmd.Wait(); err != nil {
		t.Fatalf("the script: %v\n%s", err, sc.stderr)
	}
}
