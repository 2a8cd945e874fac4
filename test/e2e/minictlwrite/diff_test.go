package minictlwrite

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/miniapi/miniapi/test/e2e/harness"
)

var (
	// diffTempDir is one of diff's temporary directories, with its path
	// (diff -u prints it) or without (a script may print the basename).
	diffTempDir = regexp.MustCompile(`(/[^\s/]+)*/?\b(LIVE|MERGED)-\d+\b`)
	// diffMtime is the modification time diff -u prints after a file name.
	diffMtime = regexp.MustCompile(`\t\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d+)? [+-]\d{4}`)
	// klogHeader starts a warning line: level, date, time and process id.
	klogHeader = regexp.MustCompile(`(?m)^W\d{4} \d\d:\d\d:\d\d\.\d{6} +\d+ `)
)

// maskDiff takes out of diff's output what differs between two runs: the
// random temporary directory names, file times, and (harness.Mask) uids,
// timestamps and resourceVersions.
func maskDiff(s string) string {
	s = diffTempDir.ReplaceAllString(s, "$2-<tmp>")
	s = diffMtime.ReplaceAllString(s, "\t<mtime>")
	s = klogHeader.ReplaceAllString(s, "W<klog> ")
	return harness.Mask(s)
}

// expectSameDiff runs diff in both tools (each in its namespace, with env
// added to the environment when given, else with stdin) and compares their
// masked stdout and stderr and their exit codes. It returns kubectl's
// result, masked.
func expectSameDiff(t *testing.T, s *harness.Server, env []string, stdin string, args ...string) harness.Result {
	t.Helper()
	args = append([]string{"diff"}, args...)
	k, m := both(s, stdin, args...)
	if env != nil {
		k, m = s.RunEnv("kubectl", env, withNS(args, nsK)...), s.RunEnv("minictl", env, withNS(args, nsM)...)
	}
	k.Stdout, k.Stderr = maskDiff(k.Stdout), maskDiff(k.Stderr)
	m.Stdout, m.Stderr = maskDiff(normalize(m.Stdout)), maskDiff(normalize(m.Stderr))
	if k.Stdout != m.Stdout || k.Stderr != m.Stderr || k.ExitCode != m.ExitCode {
		t.Errorf("%v: outputs differ\n=== kubectl %s\n=== minictl %s", args, k, m)
	}
	return k
}

// expectDiffExit is expectSameDiff that also pins kubectl's exit code, so
// that a case where both tools fail alike does not pass unnoticed.
func expectDiffExit(t *testing.T, s *harness.Server, code int, env []string, stdin string, args ...string) harness.Result {
	t.Helper()
	k := expectSameDiff(t, s, env, stdin, args...)
	if k.ExitCode != code {
		t.Errorf("%v: kubectl exited %d, want %d\n%s", args, k.ExitCode, code, k)
	}
	return k
}

// TestDiffMatchesKubectl: a new object, no change, a changed field (client-
// and server-side, with a conflict and --force-conflicts), a Secret's masked
// data, several sources (-f twice, a directory, -R, stdin).
func TestDiffMatchesKubectl(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	dir := writeFiles(t, map[string]string{
		"cm1.yaml":            configMap("cm", "1"),
		"cm2.yaml":            configMap("cm", "2"),
		"tree/a.yaml":         configMap("tree-a", "1"),
		"tree/sub/b.yaml":     configMap("tree-b", "1"),
		"tree/sub/ignored.md": "not a manifest",
		"secret1.yaml":        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\ndata:\n  same: YQ==\n  changed: YQ==\n  gone: YQ==\n",
		"secret2.yaml":        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\ndata:\n  same: YQ==\n  changed: Yg==\n  added: YQ==\n",
	})
	file := func(name string) string { return filepath.Join(dir, name) }

	k := expectDiffExit(t, s, 1, nil, "", "-n", "NS", "-f", file("cm1.yaml"))
	if !strings.Contains(k.Stdout, "+++ MERGED-<tmp>/v1.ConfigMap.ns-k.cm\t<mtime>") || !strings.Contains(k.Stdout, `+  a: "1"`) {
		t.Errorf("diff of a new object: want it all added, got:\n%s", k.Stdout)
	}
	s.MustRun(t, "kubectl", "apply", "-n", nsK, "-f", file("cm1.yaml"))
	s.MustRun(t, "minictl", "apply", "-n", nsM, "-f", file("cm1.yaml"))
	if k := expectDiffExit(t, s, 0, nil, "", "-n", "NS", "-f", file("cm1.yaml")); k.Stdout != "" || k.Stderr != "" {
		t.Errorf("diff without a change printed:\n%s", k)
	}
	k = expectDiffExit(t, s, 1, nil, "", "-n", "NS", "-f", file("cm2.yaml"))
	if !strings.Contains(k.Stdout, "-  a: \"1\"\n+  a: \"2\"\n") || strings.Contains(k.Stdout, "managedFields") {
		t.Errorf("diff of a changed field: got:\n%s", k.Stdout)
	}
	expectDiffExit(t, s, 1, nil, "", "-n", "NS", "-f", file("cm2.yaml"), "--show-managed-fields")
	expectDiffExit(t, s, 1, nil, "", "-n", "NS", "-f", file("cm2.yaml"), "--server-side")
	// Another manager conflicts with the fields apply set; diff tries four
	// times, warns, and reports the server's conflict.
	k = expectDiffExit(t, s, 2, nil, configMap("cm", "3"), "-n", "NS", "-f", "-", "--server-side", "--field-manager=other")
	if !strings.Contains(k.Stderr, "keeps changing, diffing without lock") || !strings.Contains(k.Stderr, `conflict with "kubectl-client-side-apply"`) {
		t.Errorf("server-side diff by another manager: want a warning and a conflict, got:\n%s", k)
	}
	expectOut(t, s, "configmap/cm serverside-applied\n", configMap("cm", "4"), "apply", "--server-side", "--force-conflicts", "--field-manager=other", "-n", "NS", "-f", "-")
	k = expectDiffExit(t, s, 2, nil, "", "-n", "NS", "-f", file("cm2.yaml"), "--server-side")
	if !strings.Contains(k.Stderr, `conflict with "other"`) {
		t.Errorf("server-side diff against another manager: want a conflict, got:\n%s", k)
	}
	expectDiffExit(t, s, 1, nil, "", "-n", "NS", "-f", file("cm2.yaml"), "--server-side", "--force-conflicts")

	// Secret values are masked; a changed one shows as before/after.
	expectDiffExit(t, s, 1, nil, "", "-n", "NS", "-f", file("secret1.yaml"))
	s.MustRun(t, "kubectl", "apply", "-n", nsK, "-f", file("secret1.yaml"))
	s.MustRun(t, "minictl", "apply", "-n", nsM, "-f", file("secret1.yaml"))
	k = expectDiffExit(t, s, 1, nil, "", "-n", "NS", "-f", file("secret2.yaml"))
	if !strings.Contains(k.Stdout, "-  changed: '*** (before)'") || strings.Contains(k.Stdout, "YQ==") {
		t.Errorf("diff of a secret: want masked values, got:\n%s", k.Stdout)
	}
	expectDiffExit(t, s, 1, nil, "", "-n", "NS", "-f", file("secret2.yaml"), "--show-secrets")

	// Several sources: two files, a directory with and without -R, stdin.
	expectDiffExit(t, s, 1, nil, "", "-n", "NS", "-f", file("cm2.yaml"), "-f", file("secret1.yaml"))
	expectDiffExit(t, s, 1, nil, "", "-n", "NS", "-f", file("tree"))
	expectDiffExit(t, s, 1, nil, "", "-n", "NS", "-f", file("tree"), "-R")
	expectDiffExit(t, s, 1, nil, configMap("cm", "5")+"---\n"+configMap("other", "1"), "-n", "NS", "-f", "-")
	expectDiffExit(t, s, 0, nil, "", "-n", "NS", "-f", file("secret1.yaml"))
}

// diffScript prints how it was called: each argument's basename, and the
// files in the two directories; it exits with the status in its name.
const diffScript = `#!/bin/sh
echo "$# arguments"
for a in "$@"; do basename "$a"; done
ls "$1" "$2"
exit EXIT
`

// TestDiffExternalMatchesKubectl: KUBECTL_EXTERNAL_DIFF picks the program
// and its allowed arguments; its exit status becomes diff's (>1 and a
// program that cannot run are errors, status 2).
func TestDiffExternalMatchesKubectl(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	dir := writeFiles(t, map[string]string{
		"show0":      strings.Replace(diffScript, "EXIT", "0", 1),
		"show1":      strings.Replace(diffScript, "EXIT", "1", 1),
		"show3":      strings.Replace(diffScript, "EXIT", "3", 1),
		"cm.yaml":    configMap("cm", "1"),
		"apps.yaml":  "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\nspec:\n  selector: {matchLabels: {app: d}}\n  template:\n    metadata: {labels: {app: d}}\n    spec:\n      containers: [{name: c, image: nginx}]\n",
		"ns.yaml":    "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: diffns\n",
		"empty.yaml": "",
	})
	for _, name := range []string{"show0", "show1", "show3"} {
		if err := chmodExec(filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	file := func(name string) string { return filepath.Join(dir, name) }
	args := []string{"-n", "NS", "-f", file("cm.yaml"), "-f", file("apps.yaml"), "-f", file("ns.yaml")}
	external := func(cmd string) []string { return []string{"KUBECTL_EXTERNAL_DIFF=" + cmd} }

	k := expectDiffExit(t, s, 0, external(file("show0")), "", args...)
	if !strings.Contains(k.Stdout, "LIVE-<tmp>\nMERGED-<tmp>\n") || !strings.Contains(k.Stdout, "apps.v1.Deployment.ns-k.d\n") {
		t.Errorf("external diff: want both directories and group-qualified names, got:\n%s", k.Stdout)
	}
	k = expectDiffExit(t, s, 1, external(file("show1")+" -u  --color=always /etc/passwd $(id) -N"), "", args...)
	if !strings.Contains(k.Stdout, "5 arguments\n") {
		t.Errorf("external diff with arguments: want 5 (two directories, three allowed), got:\n%s", k.Stdout)
	}
	expectDiffExit(t, s, 2, external(file("show3")), "", args...)
	expectDiffExit(t, s, 2, external("no-such-diff-program -u"), "", args...)
	expectDiffExit(t, s, 1, external(file("show1")), "", "-f", file("empty.yaml"))
}

// TestDiffErrorsMatchKubectl: broken manifests and bad flags end diff with
// kubectl's message and status 2 (1 would mean "differences found").
func TestDiffErrorsMatchKubectl(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	dir := writeFiles(t, map[string]string{
		"bad-yaml.yaml":  badManifests["bad-yaml.yaml"],
		"bad-kind.yaml":  badManifests["bad-kind.yaml"],
		"no-kind.yaml":   "apiVersion: v1\nmetadata:\n  name: x\n",
		"noname.yaml":    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  labels: {a: b}\n",
		"invalid.yaml":   badManifests["bad-invalid.yaml"],
		"other-ns.yaml":  "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  namespace: elsewhere\n",
		"good-then.yaml": configMap("good", "1") + "---\n" + badManifests["bad-yaml.yaml"],
	})
	for _, name := range []string{"bad-yaml", "bad-kind", "no-kind", "noname", "invalid", "other-ns", "good-then", "missing"} {
		expectDiffExit(t, s, 2, nil, "", "-n", "NS", "-f", filepath.Join(dir, name+".yaml"))
	}
	expectDiffExit(t, s, 2, nil, "", "-n", "NS")
	expectDiffExit(t, s, 2, nil, "", "-n", "NS", "-f", filepath.Join(dir, "noname.yaml"), "extra-arg")
	expectDiffExit(t, s, 2, nil, "", "-n", "NS", "-f", filepath.Join(dir, "noname.yaml"), "--no-such-flag")
	expectDiffExit(t, s, 2, nil, "", "-n", "NS", "-f", filepath.Join(dir, "noname.yaml"), "--force-conflicts")
}

func chmodExec(path string) error { return os.Chmod(path, 0o755) }

const widgetCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, listKind: WidgetList}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer}
              colour: {type: string}
`

// TestDiffCustomResourcesMatchKubectl: custom resources take client-side
// apply's JSON merge patch; -l picks objects by label; an object being
// deleted gets kubectl's warning.
func TestDiffCustomResourcesMatchKubectl(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	widget := func(size, colour string) string {
		return "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n  labels: {ssa: test}\nspec:\n  size: " + size + "\n  colour: " + colour + "\n"
	}
	dir := writeFiles(t, map[string]string{
		"crd.yaml":     widgetCRD,
		"w1.yaml":      widget("1", "red"),
		"w2.yaml":      widget("2", "red"),
		"unlabel.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: plain\ndata:\n  a: b\n",
		"keep.yaml":    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: keep\n  finalizers: [example.com/keep]\ndata:\n  a: b\n",
	})
	file := func(name string) string { return filepath.Join(dir, name) }
	s.MustRun(t, "kubectl", "apply", "-f", file("crd.yaml"))
	s.MustRun(t, "kubectl", "wait", "--for=condition=Established", "crd/widgets.example.com")

	expectDiffExit(t, s, 1, nil, "", "-n", "NS", "-f", file("w1.yaml"))
	for _, ns := range []string{nsK, nsM} {
		s.MustRun(t, "kubectl", "apply", "-n", ns, "-f", file("w1.yaml"))
	}
	expectDiffExit(t, s, 0, nil, "", "-n", "NS", "-f", file("w1.yaml"))
	k := expectDiffExit(t, s, 1, nil, "", "-n", "NS", "-f", file("w2.yaml"))
	if !strings.Contains(k.Stdout, "+++ MERGED-<tmp>/example.com.v1.Widget.ns-k.w") || !strings.Contains(k.Stdout, "-  size: 1\n+  size: 2\n") {
		t.Errorf("diff of a custom resource: got:\n%s", k.Stdout)
	}
	expectDiffExit(t, s, 1, nil, "", "-n", "NS", "-f", file("w2.yaml"), "--server-side")

	// -l: the unlabelled ConfigMap is left out, so nothing differs.
	expectDiffExit(t, s, 0, nil, "", "-n", "NS", "-f", file("w1.yaml"), "-f", file("unlabel.yaml"), "-l", "ssa=test")
	expectDiffExit(t, s, 1, nil, "", "-n", "NS", "-f", file("w1.yaml"), "-f", file("unlabel.yaml"), "-l", "ssa!=test")
	expectDiffExit(t, s, 2, nil, "", "-n", "NS", "-f", file("w1.yaml"), "-l", "a in (")

	// An object held by a finalizer after its delete.
	for _, ns := range []string{nsK, nsM} {
		s.MustRun(t, "kubectl", "apply", "-n", ns, "-f", file("keep.yaml"))
		s.MustRun(t, "kubectl", "delete", "-n", ns, "cm", "keep", "--wait=false")
	}
	k = expectDiffExit(t, s, 0, nil, "", "-n", "NS", "-f", file("keep.yaml"))
	if !strings.Contains(k.Stderr, "Warning: Detected changes to resource keep which is currently being deleted.") {
		t.Errorf("diff of an object being deleted: want kubectl's warning, got:\n%s", k)
	}
	for _, ns := range []string{nsK, nsM} {
		s.MustRun(t, "kubectl", "patch", "-n", ns, "cm", "keep", "--type=merge", "-p", `{"metadata":{"finalizers":null}}`)
	}
}
