// Package minictlwrite runs the real kubectl 1.37 and minictl side by side
// for the write commands (create, apply, delete, patch, label, annotate,
// edit), describe and rollout, against one bin/miniapi.
//
// Write commands change the server, so each tool works in a namespace of
// its own ("ns-k" for kubectl, "ns-m" for minictl) on objects of the same
// names; minictl's output is compared after "ns-m" is read as "ns-k".
package minictlwrite

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/miniapi/miniapi/test/e2e/harness"
)

const (
	nsK = "ns-k"
	nsM = "ns-m"
)

// startServer starts miniapi and creates the two tools' namespaces.
func startServer(t *testing.T, extra ...string) *harness.Server {
	t.Helper()
	s := harness.Start(t, append([]string{"--pod-ready-delay=0"}, extra...)...)
	s.MustRun(t, "kubectl", "create", "namespace", nsK)
	s.MustRun(t, "kubectl", "create", "namespace", nsM)
	return s
}

// both runs kubectl in ns-k and minictl in ns-m: args may hold "NS" (the
// tool's namespace) anywhere, for example in a file name.
func both(s *harness.Server, stdin string, args ...string) (k, m harness.Result) {
	return s.Run("kubectl", stdin, withNS(args, nsK)...), s.Run("minictl", stdin, withNS(args, nsM)...)
}

func withNS(args []string, ns string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = strings.ReplaceAll(a, "NS", ns)
	}
	return out
}

// normalize makes minictl's output comparable with kubectl's: its own
// namespace and command name become kubectl's.
func normalize(s string) string {
	s = strings.ReplaceAll(s, nsM, nsK)
	return strings.ReplaceAll(s, "minictl", "kubectl")
}

// expectSame runs both tools (each in its namespace) and fails unless
// stdout, stderr and exit code agree byte for byte. It returns kubectl's
// result.
func expectSame(t *testing.T, s *harness.Server, stdin string, args ...string) harness.Result {
	t.Helper()
	k, m := both(s, stdin, args...)
	if k.Stdout != normalize(m.Stdout) || k.Stderr != normalize(m.Stderr) || k.ExitCode != m.ExitCode {
		t.Errorf("%v: outputs differ\n=== kubectl %s\n=== minictl %s", args, k, m)
	}
	return k
}

// expectSameFails is expectSame for bad input: kubectl must fail, too,
// or the case proves nothing.
func expectSameFails(t *testing.T, s *harness.Server, stdin string, args ...string) {
	t.Helper()
	if k := expectSame(t, s, stdin, args...); k.ExitCode == 0 {
		t.Errorf("%v: kubectl exited 0; this case tests nothing", args)
	}
}

var (
	ageToken = regexp.MustCompile(`\b(\d+d)?(\d+h)?(\d+m)?(\d+s)?\b`)
	spaces   = regexp.MustCompile(` {2,}`)
)

// maskDescribe takes out of describe output what depends on when it ran:
// ages in Events and uids, hashes and pod suffixes (harness.Mask); runs of
// spaces are collapsed since a shorter age changes the Events alignment.
func maskDescribe(s string) string {
	s = harness.Mask(s)
	s = ageToken.ReplaceAllStringFunc(s, func(tok string) string {
		if tok == "" {
			return tok
		}
		return "<age>"
	})
	return spaces.ReplaceAllString(s, "  ")
}

// writeFiles writes name→content files into a fresh directory.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// waitSettled waits until a deployment in ns has every replica updated
// and available and its status reflects the latest generation.
func waitSettled(t *testing.T, s *harness.Server, ns, name string) *appsv1.Deployment {
	t.Helper()
	c := s.Client()
	deadline := time.Now().Add(60 * time.Second)
	var d *appsv1.Deployment
	for time.Now().Before(deadline) {
		var err error
		d, err = c.AppsV1().Deployments(ns).Get(context.Background(), name, metav1.GetOptions{})
		if err == nil && d.Spec.Replicas != nil {
			st, want := d.Status, *d.Spec.Replicas
			if st.ObservedGeneration == d.Generation && st.Replicas == want && st.UpdatedReplicas == want && st.AvailableReplicas == want {
				return d
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("deployment %s/%s did not settle: %+v", ns, name, d)
	return nil
}

// waitEvents waits until the events recorded for a settled deployment in ns
// have all landed (the recorders send them after the writes they report):
// the deployment's scaling to its final size, and the replicaset's
// SuccessfulCreate and the kubelet's Started (its last) for every pod.
func waitEvents(t *testing.T, s *harness.Server, ns string, d *appsv1.Deployment, pods []corev1.Pod) {
	t.Helper()
	want := []string{fmt.Sprintf("scaled to %d", *d.Spec.Replicas)}
	for _, p := range pods {
		want = append(want, "created "+p.Name, "started "+p.Name)
	}
	deadline := time.Now().Add(30 * time.Second)
	var missing []string
	for time.Now().Before(deadline) {
		events, err := s.Client().CoreV1().Events(ns).List(context.Background(), metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for _, e := range events.Items {
			switch e.Reason {
			case "ScalingReplicaSet":
				if _, to, ok := strings.Cut(e.Message, " to "); ok {
					seen["scaled to "+to] = true
				}
			case "SuccessfulCreate":
				seen["created "+strings.TrimPrefix(e.Message, "Created pod: ")] = true
			case "Started":
				seen["started "+e.InvolvedObject.Name] = true
			}
		}
		missing = missing[:0]
		for _, w := range want {
			if !seen[w] {
				missing = append(missing, w)
			}
		}
		if len(missing) == 0 {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("events in %s still missing after 30s: %v", ns, missing)
}
