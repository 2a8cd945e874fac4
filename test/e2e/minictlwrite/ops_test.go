package minictlwrite

import (
	"context"
	"path/filepath"
	"regexp"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/miniapi/miniapi/test/e2e/harness"
)

// Side by side tests of set image, wait and events (issue 11).

// workloadKinds holds one object of every kind set image knows besides
// Deployments, and a Service, which it does not.
const workloadKinds = `apiVersion: v1
kind: Pod
metadata: {name: p1, labels: {app: p}}
spec:
  initContainers: [{name: init, image: busybox}]
  containers: [{name: c1, image: nginx}, {name: c2, image: redis}]
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: ss}
spec:
  serviceName: ss
  replicas: 1
  selector: {matchLabels: {app: ss}}
  template:
    metadata: {labels: {app: ss}}
    spec: {containers: [{name: c1, image: nginx}]}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: ds}
spec:
  selector: {matchLabels: {app: ds}}
  template:
    metadata: {labels: {app: ds}}
    spec: {containers: [{name: c1, image: nginx}]}
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: cj}
spec:
  schedule: "0 0 1 1 *"
  jobTemplate:
    spec:
      template:
        spec: {restartPolicy: Never, containers: [{name: c1, image: nginx}]}
---
apiVersion: batch/v1
kind: Job
metadata: {name: job}
spec:
  template:
    spec: {restartPolicy: Never, containers: [{name: c1, image: nginx}]}
---
apiVersion: v1
kind: ReplicationController
metadata: {name: rc}
spec:
  replicas: 0
  selector: {app: rc}
  template:
    metadata: {labels: {app: rc}}
    spec: {containers: [{name: c1, image: nginx}]}
---
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: rs}
spec:
  replicas: 0
  selector: {matchLabels: {app: rs}}
  template:
    metadata: {labels: {app: rs}}
    spec: {containers: [{name: c1, image: nginx}]}
---
apiVersion: v1
kind: Service
metadata: {name: svc}
spec:
  ports: [{port: 80}]
`

// expectSameAllMasked compares stdout and stderr after harness.Mask (uids
// and timestamps differ between the twin objects).
func expectSameAllMasked(t *testing.T, s *harness.Server, args ...string) harness.Result {
	t.Helper()
	k, m := both(s, "", args...)
	if harness.Mask(k.Stdout) != harness.Mask(normalize(m.Stdout)) || harness.Mask(k.Stderr) != harness.Mask(normalize(m.Stderr)) || k.ExitCode != m.ExitCode {
		t.Errorf("%v: outputs differ\n=== kubectl %s\n=== minictl %s", args, k, m)
	}
	return k
}

// twinWorkloads creates deployment web and the workloadKinds objects in
// both tools' namespaces, each with its own tool.
func twinWorkloads(t *testing.T, s *harness.Server) string {
	t.Helper()
	file := filepath.Join(writeFiles(t, map[string]string{"kinds.yaml": workloadKinds}), "kinds.yaml")
	for tool, ns := range map[string]string{"kubectl": nsK, "minictl": nsM} {
		s.MustRun(t, tool, "create", "deployment", "web", "-n", ns, "--image=nginx", "--replicas=2")
		s.MustRun(t, tool, "create", "-n", ns, "-f", file)
	}
	waitSettled(t, s, nsK, "web")
	waitSettled(t, s, nsM, "web")
	return file
}

// TestSetImageMatchesKubectl: set image on every kind it supports, with
// its flags and its errors, prints what kubectl prints and changes what
// kubectl changes, with a strategic merge patch as field manager
// kubectl-set (the unit tests check the patch).
func TestSetImageMatchesKubectl(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	file := twinWorkloads(t, s)

	expectSame(t, s, "", "set", "image", "-n", "NS", "deployment/web", "nginx=nginx:1.25")
	expectSame(t, s, "", "set", "image", "-n", "NS", "deployment/web", "nginx=nginx:1.25") // no change: silent
	expectSameFails(t, s, "", "set", "image", "-n", "NS", "deployment/web", "nope=nginx:1.25")
	expectSame(t, s, "", "set", "image", "-n", "NS", "deployment/web", "*=nginx:1.26")
	expectSame(t, s, "", "set", "image", "-n", "NS", "deployment/web", "nginx=nginx:1.27", "--dry-run=client")
	expectSame(t, s, "", "set", "image", "-n", "NS", "deployment/web", "nginx=nginx:1.27", "--dry-run=server")
	expectSame(t, s, "", "set", "image", "-n", "NS", "deployment/web", "nginx=nginx:1.27", "--dry-run=server", "-o", "name")
	// Whole objects carry the status: the twins must have settled alike.
	for _, out := range [][]string{{"nginx=nginx:1.28", "-o", "yaml"}, {"nginx=nginx:1.29", "-o", "json"}, {"nginx=nginx:1.30", "--dry-run=client", "-o", "json"}} {
		waitSettled(t, s, nsK, "web")
		waitSettled(t, s, nsM, "web")
		expectSameAllMasked(t, s, append([]string{"set", "image", "-n", "NS", "deployment/web"}, out...)...)
	}

	// --record (deprecated) writes the command line into the change-cause
	// that rollout history shows.
	expectSame(t, s, "", "set", "image", "-n", "NS", "deployment/web", "nginx=nginx:1.31", "--record")
	waitSettled(t, s, nsK, "web")
	waitSettled(t, s, nsM, "web")
	expectSame(t, s, "", "rollout", "history", "-n", "NS", "deployment/web")
	expectSame(t, s, "", "set", "image", "-n", "NS", "deployment/web", "nginx=nginx:1.29")

	for _, r := range []string{"pod/p1", "sts/ss", "ds/ds", "cj/cj", "rc/rc", "rs/rs"} {
		expectSame(t, s, "", "set", "image", "-n", "NS", r, "c1=nginx:9")
	}
	expectSame(t, s, "", "set", "image", "-n", "NS", "pod/p1", "init=busybox:2", "c2=redis:7")
	expectSame(t, s, "", "set", "image", "-n", "NS", "deploy,rc,rs,sts", "--all", "c1=nginx:10")
	expectSame(t, s, "", "set", "image", "-n", "NS", "pods", "-l", "app=p", "c1=nginx:11")
	// A Job's template is immutable: the server's 422 is reported.
	expectSameAllMasked(t, s, "set", "image", "-n", "NS", "job/job", "c1=nginx:9")
	expectSameFails(t, s, "", "set", "image", "-n", "NS", "svc/svc", "c1=x")
	expectSameFails(t, s, "", "set", "image", "-n", "NS", "pod/p1", "svc/svc", "c1=y")
	expectSameAllMasked(t, s, "set", "image", "-n", "NS", "-f", file, "c1=nginx:12")
	expectSame(t, s, "", "set", "image", "-f", file, "c1=nginx:13", "--local", "-o", "name")

	for _, bad := range [][]string{
		{"deployment/web"},
		{},
		{"deployment/nope", "a=b"},
		{"deployment", "a=b"},
		{"deployment", "a=b", "--all", "-l", "x=y"},
		{"deployment/web", "a=b", "*=c"},
		{"deployment/web", "a-"},
		{"deployment/web", "a=b", "web"},
		{"deployment/web", "a=b", "--dry-run=bad"},
		{"-f", file, "c1=x", "--local", "pod/p1"},
		{"-f", file, "c1=x", "--local", "--dry-run=server"},
	} {
		expectSameFails(t, s, "", append([]string{"set", "image", "-n", "NS"}, bad...)...)
	}
	expectSameFails(t, s, "", "set", "nothing")
	expectSameFails(t, s, "", "set", "image", "--bogus")

	// The change really happened (the --dry-run ones did not).
	for _, ns := range []string{nsK, nsM} {
		d, err := s.Client().AppsV1().Deployments(ns).Get(context.Background(), "web", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if img := d.Spec.Template.Spec.Containers[0].Image; img != "nginx:1.29" {
			t.Errorf("%s: image %q, want nginx:1.29", ns, img)
		}
	}
}

var klogLine = regexp.MustCompile(`(?m)^[IWE]\d{4} \d\d:\d\d:\d\d\.\d+ .*\n`)

// withoutKlog drops client-go's log lines (kubectl lets its reflector log
// "Failed to watch" when a wait times out; minictl keeps them off stderr).
func withoutKlog(s string) string { return klogLine.ReplaceAllString(s, "") }
