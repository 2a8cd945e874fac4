package minictlwrite

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The bad manifests of the reference (kubectl-1.37-outputs.md §4).
var badManifests = map[string]string{
	"bad-yaml.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: bad\n spec: [\n",
	"bad-kind.yaml": "apiVersion: apps/v1\nkind: Deploymnt\nmetadata:\n  name: bad-kind\n",
	"bad-invalid.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: bad-invalid
spec:
  replicas: 2
  template:
    metadata:
      labels:
        app: bad
    spec:
      containers:
      - name: c
`,
	"bad-unknown-field.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: bad-unknown
spec:
  replicas: 1
  selector:
    matchLabels: {app: bad}
  template:
    metadata:
      labels: {app: bad}
    spec:
      containers:
      - name: c
        image: nginx
        imagePullPolicyy: Always
`,
	"bad-noname.yaml": `apiVersion: apps/v1
kind: Deployment
metadata: {}
spec:
  replicas: 1
  selector:
    matchLabels: {app: bad}
  template:
    metadata:
      labels: {app: other}
    spec:
      containers:
      - name: c
        image: nginx
`,
}

// TestBadManifestsMatchKubectl: every broken manifest gives kubectl's
// message and a non-zero exit from create -f and apply -f alike.
func TestBadManifestsMatchKubectl(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	dir := writeFiles(t, badManifests)
	for _, name := range []string{"bad-yaml", "bad-invalid", "bad-unknown-field", "bad-noname", "missing"} {
		f := filepath.Join(dir, name+".yaml")
		expectSameFails(t, s, "", "apply", "-n", "NS", "-f", f)
		expectSameFails(t, s, "", "create", "-n", "NS", "-f", f)
	}
	// An unknown kind: against kube-apiserver kubectl prints the mapping
	// error of the reference (§4); against a server without the
	// apiextensions API its client-side validation fails earlier, on the
	// CRD lookup. minictl prints the reference's text.
	kindFile := filepath.Join(dir, "bad-kind.yaml")
	for _, verb := range []string{"apply", "create"} {
		m := s.Run("minictl", "", verb, "-f", kindFile)
		want := "error: resource mapping not found for name: \"bad-kind\" namespace: \"\" from \"" + kindFile +
			"\": no matches for kind \"Deploymnt\" in version \"apps/v1\"\nensure CRDs are installed first\n"
		if m.Stderr != want || m.Stdout != "" || m.ExitCode != 1 {
			t.Errorf("%s -f bad-kind.yaml: %s\nwant stderr %q", verb, m, want)
		}
		if k := s.Run("kubectl", "", verb, "-f", kindFile, "--validate=false"); k.Stderr != m.Stderr || k.ExitCode != m.ExitCode {
			t.Errorf("%s -f bad-kind.yaml --validate=false:\n=== kubectl %s\n=== minictl %s", verb, k, m)
		}
	}
	if err := os.Remove(kindFile); err != nil {
		t.Fatal(err)
	}
	// A directory of them: kubectl reports the reading errors together,
	// then each server error.
	expectSameFails(t, s, "", "apply", "-n", "NS", "-f", dir)
	expectSameFails(t, s, "", "apply", "-n", "NS", "-f", "-", "--validate=bogus")
	expectSameFails(t, s, "", "create", "-n", "NS")
}

// TestCreateMatchesKubectl: create deployment / namespace / -f, and the
// errors for objects that already exist.
func TestCreateMatchesKubectl(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	expectSame(t, s, "", "create", "deployment", "web", "-n", "NS", "--image=nginx", "--replicas=2")
	expectSameFails(t, s, "", "create", "deployment", "web", "-n", "NS", "--image=nginx")
	expectSame(t, s, "", "create", "namespace", "NS-extra")
	expectSameFails(t, s, "", "create", "namespace", "NS-extra")
	manifest := `apiVersion: v1
kind: Namespace
metadata:
  name: NS-file
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: api
  namespace: NS
spec:
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec:
      containers: [{name: c, image: nginx}]
`
	dir := writeFiles(t, map[string]string{"k.yaml": withNS([]string{manifest}, nsK)[0], "m.yaml": withNS([]string{manifest}, nsM)[0]})
	k, m := s.Run("kubectl", "", "create", "-f", filepath.Join(dir, "k.yaml")), s.Run("minictl", "", "create", "-f", filepath.Join(dir, "m.yaml"))
	if k.ExitCode != 0 || k.Stdout != normalize(m.Stdout) || k.Stderr != normalize(m.Stderr) || m.ExitCode != 0 {
		t.Errorf("create -f:\n=== kubectl %s\n=== minictl %s", k, m)
	}
	k, m = s.Run("kubectl", "", "create", "-f", filepath.Join(dir, "k.yaml")), s.Run("minictl", "", "create", "-f", filepath.Join(dir, "m.yaml"))
	want := `Error from server (AlreadyExists): error when creating "` + filepath.Join(dir, "k.yaml") + `": namespaces "ns-k-file" already exists`
	if !strings.Contains(k.Stderr, want) || k.ExitCode == 0 || strings.ReplaceAll(normalize(m.Stderr), "m.yaml", "k.yaml") != k.Stderr || m.ExitCode != k.ExitCode {
		t.Errorf("create -f again:\n=== kubectl %s\n=== minictl %s", k, m)
	}
	// The deployment the typed client sent (protobuf) has what kubectl's has.
	c := s.Client()
	dk, err1 := c.AppsV1().Deployments(nsK).Get(context.Background(), "web", metav1.GetOptions{})
	dm, err2 := c.AppsV1().Deployments(nsM).Get(context.Background(), "web", metav1.GetOptions{})
	if err1 != nil || err2 != nil || *dk.Spec.Replicas != *dm.Spec.Replicas || dk.Spec.Template.Spec.Containers[0].Name != dm.Spec.Template.Spec.Containers[0].Name ||
		dm.Labels["app"] != "web" {
		t.Errorf("created objects differ: %v %v\n%+v\n%+v", err1, err2, dk.ObjectMeta, dm.ObjectMeta)
	}
}

const appManifest = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: applied
  labels: {app: applied, tier: LABEL}
spec:
  replicas: REPLICAS
  selector:
    matchLabels: {app: applied}
  template:
    metadata:
      labels: {app: applied}
    spec:
      containers:
      - name: c
        image: nginx
---
apiVersion: v1
kind: Namespace
metadata:
  name: NS-applied
`

// TestApplyMatchesKubectl: client-side apply creates, reports unchanged,
// configures with a three-way merge (a removed label goes, a label set by
// someone else stays), reads stdin and directories, and stores the same
// last-applied annotation as kubectl.
func TestApplyMatchesKubectl(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	manifest := func(replicas, label string) string {
		return strings.NewReplacer("REPLICAS", replicas, "LABEL", label).Replace(appManifest)
	}
	dirK := writeFiles(t, map[string]string{"app.yaml": withNS([]string{manifest("2", "front")}, nsK)[0]})
	dirM := writeFiles(t, map[string]string{"app.yaml": withNS([]string{manifest("2", "front")}, nsM)[0]})
	applyBoth := func(stdin bool, wantOut string) {
		t.Helper()
		args := func(dir, ns string) []string {
			if stdin {
				return []string{"apply", "-n", ns, "-f", "-"}
			}
			return []string{"apply", "-n", ns, "-f", dir}
		}
		in := func(dir, ns string) string {
			if !stdin {
				return ""
			}
			return withNS([]string{manifest("3", "back")}, ns)[0]
		}
		k := s.Run("kubectl", in(dirK, nsK), args(dirK, nsK)...)
		m := s.Run("minictl", in(dirM, nsM), args(dirM, nsM)...)
		if k.Stdout != normalize(m.Stdout) || k.Stderr != normalize(m.Stderr) || k.ExitCode != m.ExitCode || k.Stdout != wantOut {
			t.Errorf("apply (stdin=%v):\n=== kubectl %s\n=== minictl %s", stdin, k, m)
		}
	}
	applyBoth(false, "deployment.apps/applied created\nnamespace/ns-k-applied created\n")
	applyBoth(false, "deployment.apps/applied unchanged\nnamespace/ns-k-applied unchanged\n")
	expectSame(t, s, "", "label", "-n", "NS", "deploy", "applied", "owner=someone")
	applyBoth(true, "deployment.apps/applied configured\nnamespace/ns-k-applied unchanged\n")
	expectSame(t, s, "", "get", "deploy", "applied", "-n", "NS", "-o",
		`jsonpath={.metadata.labels}{.spec.replicas}{.metadata.annotations.kubectl\.kubernetes\.io/last-applied-configuration}`)

	// Applying to an object create made: kubectl's warning, then configured.
	s.MustRun(t, "kubectl", "create", "deployment", "plain", "-n", nsK, "--image=nginx")
	s.MustRun(t, "minictl", "create", "deployment", "plain", "-n", nsM, "--image=nginx")
	plain := `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"plain","namespace":"NS"},"spec":{"replicas":2,"selector":{"matchLabels":{"app":"plain"}},"template":{"metadata":{"labels":{"app":"plain"}},"spec":{"containers":[{"name":"nginx","image":"nginx"}]}}}}`
	k := s.Run("kubectl", withNS([]string{plain}, nsK)[0], "apply", "-f", "-")
	m := s.Run("minictl", withNS([]string{plain}, nsM)[0], "apply", "-f", "-")
	if k.Stdout != normalize(m.Stdout) || k.Stderr != normalize(m.Stderr) || k.ExitCode != 0 || m.ExitCode != 0 {
		t.Errorf("apply over create:\n=== kubectl %s\n=== minictl %s", k, m)
	}
}

// TestPatchLabelAnnotateMatchKubectl: messages, no-change reports and the
// errors of patch, label and annotate.
func TestPatchLabelAnnotateMatchKubectl(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	s.MustRun(t, "kubectl", "create", "deployment", "web", "-n", nsK, "--image=nginx")
	s.MustRun(t, "minictl", "create", "deployment", "web", "-n", nsM, "--image=nginx")
	for _, args := range [][]string{
		{"patch", "-n", "NS", "deploy", "web", "-p", `{"spec":{"replicas":2}}`},
		{"patch", "-n", "NS", "deploy", "web", "-p", `{"spec":{"replicas":2}}`},
		{"patch", "-n", "NS", "deploy/web", "--type", "merge", "-p", `spec: {replicas: 3}`},
		{"patch", "-n", "NS", "deploy", "web", "--type", "json", "-p", `[{"op":"replace","path":"/spec/replicas","value":1}]`},
		{"label", "-n", "NS", "deploy", "web", "tier=front"},
		{"label", "-n", "NS", "deploy", "web", "tier=front"},
		{"label", "-n", "NS", "deploy", "web", "tier=back", "--overwrite"},
		{"label", "-n", "NS", "deploy", "web", "tier-", "nope-"},
		{"label", "-n", "NS", "deploy", "-l", "app=web", "team=a"},
		{"annotate", "-n", "NS", "deploy", "web", "note=x"},
		{"annotate", "-n", "NS", "deploy/web", "note=y", "--overwrite"},
		{"annotate", "-n", "NS", "deploy", "web", "note-"},
	} {
		if k := expectSame(t, s, "", args...); k.ExitCode != 0 {
			t.Errorf("%v: kubectl failed: %s", args, k)
		}
	}
	for _, args := range [][]string{
		{"patch", "-n", "NS", "deploy", "web"},
		{"patch", "-n", "NS", "deploy", "web", "--type", "bogus", "-p", "{}"},
		{"patch", "-n", "NS", "deploy", "nope", "-p", "{}"},
		{"patch", "-n", "NS", "deploy", "web", "-p", "{bad"},
		{"patch", "-n", "NS", "deploy", "web", "-p", `{"spec":{"replicas":-1}}`},
		{"label", "-n", "NS", "deploy", "web", "team=b"},
		{"label", "-n", "NS", "deploy", "web"},
		{"label", "-n", "NS", "deploy", "web", "a=b=c"},
		{"label", "-n", "NS", "deploy", "nope", "a=b"},
		{"annotate", "-n", "NS", "deploy", "web", "x=1", "x-"},
		{"annotate", "-n", "NS", "deploy", "web"},
	} {
		expectSameFails(t, s, "", args...)
	}
	expectSame(t, s, "", "get", "deploy", "web", "-n", "NS", "-o", "jsonpath={.metadata.labels}{.metadata.annotations}{.spec.replicas}")
}

// TestDeleteMatchesKubectl: messages, cascade values and errors; after the
// command returns the object is gone (delete waits, as kubectl does).
func TestDeleteMatchesKubectl(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	for _, name := range []string{"a", "b", "c", "d"} {
		s.MustRun(t, "kubectl", "create", "deployment", name, "-n", nsK, "--image=nginx")
		s.MustRun(t, "minictl", "create", "deployment", name, "-n", nsM, "--image=nginx")
	}
	expectSame(t, s, "", "delete", "-n", "NS", "deploy", "a")
	c := s.Client()
	for _, ns := range []string{nsK, nsM} {
		if _, err := c.AppsV1().Deployments(ns).Get(context.Background(), "a", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("%s/a still there after delete returned: %v", ns, err)
		}
	}
	expectSameFails(t, s, "", "delete", "-n", "NS", "deploy", "a")
	expectSame(t, s, "", "delete", "-n", "NS", "deploy", "a", "--ignore-not-found")
	expectSame(t, s, "", "delete", "-n", "NS", "deploy", "-l", "app=nothing")
	expectSame(t, s, "", "delete", "-n", "NS", "deploy", "-l", "app=b", "--cascade=foreground")
	expectSameFails(t, s, "", "delete", "-n", "NS", "deploy")
	expectSameFails(t, s, "", "delete", "-n", "NS", "deploy", "c", "--cascade=bogus")
	expectSameFails(t, s, "", "delete", "-n", "NS", "deploy", "c", "nope")
	expectSame(t, s, "", "delete", "-n", "NS", "deploy", "--all")
	dir := writeFiles(t, map[string]string{"ns.yaml": "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: gone-k\n"})
	s.MustRun(t, "kubectl", "create", "namespace", "gone-k")
	k := s.Run("kubectl", "", "delete", "-f", filepath.Join(dir, "ns.yaml"))
	s.MustRun(t, "kubectl", "create", "namespace", "gone-k")
	m := s.Run("minictl", "", "delete", "-f", filepath.Join(dir, "ns.yaml"))
	if k.Stdout != m.Stdout || k.Stderr != m.Stderr || k.ExitCode != 0 || m.ExitCode != 0 {
		t.Errorf("delete -f namespace:\n=== kubectl %s\n=== minictl %s", k, m)
	}
}
