package minictlwrite

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestRolloutMatchesKubectl: status, history, restart, undo, pause and
// resume print what kubectl prints, on twin deployments.
func TestRolloutMatchesKubectl(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	s.MustRun(t, "kubectl", "create", "deployment", "web", "-n", nsK, "--image=nginx", "--replicas=2")
	s.MustRun(t, "minictl", "create", "deployment", "web", "-n", nsM, "--image=nginx", "--replicas=2")
	waitSettled(t, s, nsK, "web")
	waitSettled(t, s, nsM, "web")

	expectSame(t, s, "", "rollout", "status", "-n", "NS", "deploy/web")
	expectSame(t, s, "", "rollout", "history", "-n", "NS", "deploy/web")
	expectSame(t, s, "", "rollout", "restart", "-n", "NS", "deploy/web")
	waitSettled(t, s, nsK, "web")
	waitSettled(t, s, nsM, "web")
	expectSame(t, s, "", "rollout", "status", "-n", "NS", "deployment", "web", "--timeout=30s")
	expectSame(t, s, "", "rollout", "history", "-n", "NS", "deploy/web")
	k, m := both(s, "", "rollout", "history", "-n", "NS", "deploy/web", "--revision=2")
	if k.ExitCode != 0 || maskDescribe(k.Stdout) != maskDescribe(normalize(m.Stdout)) || m.ExitCode != 0 {
		t.Errorf("history --revision:\n=== kubectl %s\n=== minictl %s", k, m)
	}
	expectSameFails(t, s, "", "rollout", "history", "-n", "NS", "deploy/web", "--revision=9")
	expectSameFails(t, s, "", "rollout", "undo", "-n", "NS", "deploy/web", "--to-revision=9")
	expectSame(t, s, "", "rollout", "undo", "-n", "NS", "deploy/web")
	waitSettled(t, s, nsK, "web")
	waitSettled(t, s, nsM, "web")
	expectSame(t, s, "", "rollout", "history", "-n", "NS", "deploy/web")
	expectSame(t, s, "", "rollout", "undo", "-n", "NS", "deploy/web", "--to-revision=3")

	expectSame(t, s, "", "rollout", "pause", "-n", "NS", "deploy/web")
	expectSameFails(t, s, "", "rollout", "pause", "-n", "NS", "deploy/web")
	expectSameFails(t, s, "", "rollout", "restart", "-n", "NS", "deploy/web")
	expectSameFails(t, s, "", "rollout", "undo", "-n", "NS", "deploy/web")
	expectSame(t, s, "", "rollout", "resume", "-n", "NS", "deploy/web")
	expectSameFails(t, s, "", "rollout", "resume", "-n", "NS", "deploy/web")
	expectSameFails(t, s, "", "rollout", "status", "-n", "NS", "deploy/nope")
	expectSameFails(t, s, "", "rollout", "status", "-n", "NS")
}

// TestRolloutStatusWaits: during a rollout that cannot finish (an image
// change while paused pods stay), status prints progress lines and ends
// with the timeout error, like kubectl; once the rollout completes both
// print the success line last.
func TestRolloutStatusWaits(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	for _, tool := range []string{"kubectl", "minictl"} {
		ns := map[string]string{"kubectl": nsK, "minictl": nsM}[tool]
		s.MustRun(t, tool, "create", "deployment", "web", "-n", ns, "--image=nginx", "--replicas=2")
		waitSettled(t, s, ns, "web")
		s.MustRun(t, tool, "rollout", "pause", "-n", ns, "deploy/web")
		s.MustRun(t, tool, "patch", "-n", ns, "deploy/web", "-p", `{"spec":{"template":{"spec":{"containers":[{"name":"nginx","image":"nginx:2"}]}}}}`)
	}
	k, m := both(s, "", "rollout", "status", "-n", "NS", "deploy/web", "--timeout=1s")
	if k.ExitCode != 1 || m.ExitCode != 1 || k.Stderr != normalize(m.Stderr) || firstLine(k.Stdout) != firstLine(normalize(m.Stdout)) {
		t.Errorf("status of a stalled rollout:\n=== kubectl %s\n=== minictl %s", k, m)
	}
	for _, tool := range []string{"kubectl", "minictl"} {
		ns := map[string]string{"kubectl": nsK, "minictl": nsM}[tool]
		s.MustRun(t, tool, "rollout", "resume", "-n", ns, "deploy/web")
	}
	k, m = both(s, "", "rollout", "status", "-n", "NS", "deploy/web", "--timeout=60s")
	want := "deployment \"web\" successfully rolled out\n"
	if k.ExitCode != 0 || m.ExitCode != 0 || !strings.HasSuffix(k.Stdout, want) || !strings.HasSuffix(m.Stdout, want) {
		t.Errorf("status until done:\n=== kubectl %s\n=== minictl %s", k, m)
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// TestDescribeMatchesKubectl: describe of the same objects prints the same
// text, ages, uids and hashes aside.
func TestDescribeMatchesKubectl(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	s.MustRun(t, "kubectl", "create", "deployment", "web", "-n", nsK, "--image=nginx", "--replicas=2", "--port=80")
	s.MustRun(t, "kubectl", "annotate", "-n", nsK, "deploy/web", "note=hello")
	s.MustRun(t, "kubectl", "scale", "-n", nsK, "deploy/web", "--replicas=3")
	d := waitSettled(t, s, nsK, "web")
	pods, err := s.Client().CoreV1().Pods(nsK).List(context.Background(), metav1.ListOptions{})
	if err != nil || len(pods.Items) == 0 {
		t.Fatalf("no pods: %v", err)
	}
	nodes, err := s.Client().CoreV1().Nodes().List(context.Background(), metav1.ListOptions{})
	if err != nil || len(nodes.Items) == 0 {
		t.Fatalf("no nodes: %v", err)
	}
	waitEvents(t, s, nsK, d, pods.Items)
	for _, args := range [][]string{
		{"describe", "-n", nsK, "deployment", "web"},
		{"describe", "-n", nsK, "deploy/web"},
		{"describe", "-n", nsK, "rs"},
		{"describe", "-n", nsK, "pod", pods.Items[0].Name},
		{"describe", "-n", nsK, "pods"},
		{"describe", "-n", nsK, "deploy", "we"},
		{"describe", "namespace", nsK},
		{"describe", "node", nodes.Items[0].Name},
		{"describe", "-n", nsK, "deploy", "nope"},
		{"describe", "-n", "empty", "deploy"},
		{"describe", "nosuchtype", "x"},
	} {
		k, m := s.Both("", args...)
		if maskDescribe(k.Stdout) != maskDescribe(m.Stdout) || k.Stderr != normalize(m.Stderr) || k.ExitCode != m.ExitCode {
			t.Errorf("%v: outputs differ\n=== kubectl %s\n=== minictl %s", args, k, m)
		}
	}
}

// TestEditWithEditorScript: $EDITOR is a script that changes the replica
// count; both tools patch the object and say "edited"; an editor that
// changes nothing cancels the edit with kubectl's message.
func TestEditWithEditorScript(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	s.MustRun(t, "kubectl", "create", "deployment", "web", "-n", nsK, "--image=nginx")
	s.MustRun(t, "minictl", "create", "deployment", "web", "-n", nsM, "--image=nginx")
	dir := t.TempDir()
	script := filepath.Join(dir, "editor.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nsed -i 's/^  replicas: 1$/  replicas: 4/' \"$1\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	noop := filepath.Join(dir, "noop.sh")
	if err := os.WriteFile(noop, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	// An invalid change: the file is reopened with the causes, saved again
	// unchanged, and the edit gives up keeping a copy of the file.
	invalid := filepath.Join(dir, "invalid.sh")
	if err := os.WriteFile(invalid, []byte("#!/bin/sh\nsed -i 's/^  replicas: .*$/  replicas: -1/' \"$1\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	tmpName := regexp.MustCompile(`-edit-\d+\.yaml`)
	for _, editor := range []string{script, noop, invalid} {
		env := []string{"EDITOR=" + editor, "KUBE_EDITOR=", "TMPDIR=" + dir}
		k := s.RunEnv("kubectl", env, "edit", "-n", nsK, "deploy/web")
		m := s.RunEnv("minictl", env, "edit", "-n", nsM, "deploy/web")
		m.Stderr = tmpName.ReplaceAllString(m.Stderr, "-edit-N.yaml")
		k.Stderr = tmpName.ReplaceAllString(k.Stderr, "-edit-N.yaml")
		if k.Stdout != normalize(m.Stdout) || k.Stderr != normalize(m.Stderr) || k.ExitCode != m.ExitCode {
			t.Errorf("edit with %s:\n=== kubectl %s\n=== minictl %s", filepath.Base(editor), k, m)
		}
	}
	expectSame(t, s, "", "get", "deploy", "web", "-n", "NS", "-o", "jsonpath={.spec.replicas}")
}
