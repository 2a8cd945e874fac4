// Package kubectl runs the real kubectl 1.37 (bin/kubectl), with its
// default flags, against bin/miniapi, and compares what it prints with what
// it prints against kube-apiserver (../shared/reference/kubectl-1.37-outputs.md).
//
// Values that differ by nature are masked: ages, uids, resourceVersions,
// pod-template hashes and pod-name suffixes. Tests that need pods or
// replicasets wait for the controllers to create them.
package kubectl

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/miniapi/miniapi/test/e2e/harness"
)

// start runs a fresh miniapi with small delays so the simulated pods become
// ready quickly.
func start(t *testing.T) *harness.Server {
	t.Helper()
	return harness.Start(t, "--pod-ready-delay=100ms")
}

// ok runs kubectl and fails the test unless it exits 0.
func ok(t *testing.T, s *harness.Server, args ...string) harness.Result {
	t.Helper()
	res := s.Run("kubectl", "", args...)
	if res.ExitCode != 0 {
		t.Fatalf("kubectl %s: %s", strings.Join(args, " "), res)
	}
	return res
}

// expectOut runs kubectl and checks it succeeded with exactly this stdout.
func expectOut(t *testing.T, s *harness.Server, want string, args ...string) harness.Result {
	t.Helper()
	res := ok(t, s, args...)
	if res.Stdout != want {
		t.Errorf("kubectl %s:\n got %q\nwant %q\n%s", strings.Join(args, " "), res.Stdout, want, res)
	}
	return res
}

// fails runs kubectl and checks it exited 1 with exactly this stderr.
func fails(t *testing.T, s *harness.Server, wantStderr string, args ...string) {
	t.Helper()
	res := s.Run("kubectl", "", args...)
	if res.ExitCode != 1 || res.Stderr != wantStderr || res.Stdout != "" {
		t.Errorf("kubectl %s:\n got %s\nwant exit 1, stderr %q", strings.Join(args, " "), res, wantStderr)
	}
}

// manifest writes a file into the test's temp dir and returns its path.
func manifest(t *testing.T, name, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// cells splits a table line into its cells: kubectl separates columns by
// at least three spaces, and values hold at most single spaces.
func cells(line string) []string {
	return regexp.MustCompile(`\s{2,}`).Split(strings.TrimSpace(line), -1)
}

var agePattern = regexp.MustCompile(`^(\d+(s|m|h|d|y))+$|^<invalid>$`)

// table parses kubectl's table output into rows of cells, with the AGE
// column (wherever it is) replaced by "AGE" after checking it looks like one.
func table(t *testing.T, out string) [][]string {
	t.Helper()
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) == 0 {
		t.Fatalf("no table in %q", out)
	}
	rows := [][]string{cells(lines[0])}
	ageCol := -1
	for i, h := range rows[0] {
		if h == "AGE" {
			ageCol = i
		}
	}
	for _, l := range lines[1:] {
		row := cells(l)
		if ageCol >= 0 && ageCol < len(row) {
			if !agePattern.MatchString(row[ageCol]) {
				t.Errorf("AGE cell %q in line %q", row[ageCol], l)
			}
			row[ageCol] = "AGE"
		}
		rows = append(rows, row)
	}
	return rows
}

func join(rows [][]string) string {
	var b strings.Builder
	for _, r := range rows {
		b.WriteString(strings.Join(r, " | "))
		b.WriteString("\n")
	}
	return b.String()
}

// expectTable runs kubectl and compares its table, AGE masked, with want
// ("NAME | READY | ..." per line).
func expectTable(t *testing.T, s *harness.Server, want string, args ...string) {
	t.Helper()
	res := ok(t, s, args...)
	if got := join(table(t, res.Stdout)); got != want {
		t.Errorf("kubectl %s:\n got:\n%s\nwant:\n%s", strings.Join(args, " "), got, want)
	}
}

// eventually polls f every 100ms until it returns "" or the timeout passes,
// then fails with f's last complaint.
func eventually(t *testing.T, timeout time.Duration, f func() string) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		msg := f()
		if msg == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %s: %s", timeout, msg)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// jsonpath is kubectl get ... -o jsonpath=EXPR.
func jsonpath(t *testing.T, s *harness.Server, expr string, args ...string) string {
	t.Helper()
	return ok(t, s, append(args, "-o", "jsonpath="+expr)...).Stdout
}

// stream runs a long-lived kubectl (get -w) until ctx ends, sending each
// stdout line on the returned channel, which closes when kubectl exits.
func stream(ctx context.Context, t *testing.T, s *harness.Server, args ...string) <-chan string {
	t.Helper()
	lines, _ := startStream(ctx, t, s, nil, args...)
	return lines
}

// streamWatching is stream for a watch that prints nothing until a change
// (--watch-only): it returns once kubectl's watch request has been
// answered, as kubectl's -v=6 request log on stderr shows. The server
// answers a watch only once it is registered, and kubectl watches from
// the resourceVersion of its list, so no later change can be missed.
func streamWatching(ctx context.Context, t *testing.T, s *harness.Server, timeout time.Duration, args ...string) <-chan string {
	t.Helper()
	watching := make(chan struct{})
	var once sync.Once
	isWatch := func(l string) bool {
		return strings.Contains(l, "watch=true") && strings.Contains(l, `status="200 OK"`)
	}
	lines, stderr := startStream(ctx, t, s, func(l string) {
		if isWatch(l) {
			once.Do(func() { close(watching) })
		}
	}, append(args, "-v=6")...)
	select {
	case <-watching:
	case <-time.After(timeout):
		t.Fatalf("kubectl %s: no watch answered within %s; stderr:\n%s", strings.Join(args, " "), timeout, stderr())
	}
	return lines
}

// startStream starts kubectl; onStderr (if set) sees each stderr line, and
// the returned func gives the stderr so far.
func startStream(ctx context.Context, t *testing.T, s *harness.Server, onStderr func(string), args ...string) (<-chan string, func() string) {
	t.Helper()
	cmd := exec.CommandContext(ctx, harness.Binary(t, "kubectl"), args...)
	home := filepath.Join(filepath.Dir(s.DataDir), "home-kubectl")
	cmd.Env = append(os.Environ(), "KUBECONFIG="+s.Kubeconfig, "HOME="+home)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	errOut, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var stderr strings.Builder
	var readers sync.WaitGroup
	readers.Go(func() {
		sc := bufio.NewScanner(errOut)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			mu.Lock()
			stderr.WriteString(sc.Text() + "\n")
			mu.Unlock()
			if onStderr != nil {
				onStderr(sc.Text())
			}
		}
	})
	lines := make(chan string, 100)
	readers.Go(func() {
		defer close(lines)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
	})
	go func() {
		readers.Wait() // both pipes read to the end before Wait closes them
		_ = cmd.Wait()
	}()
	return lines, func() string { mu.Lock(); defer mu.Unlock(); return stderr.String() }
}

// next waits for the next line of a stream.
func next(t *testing.T, lines <-chan string, timeout time.Duration) string {
	t.Helper()
	select {
	case l, open := <-lines:
		if !open {
			t.Fatal("kubectl exited early")
		}
		return l
	case <-time.After(timeout):
		t.Fatalf("no line within %s", timeout)
	}
	return ""
}
