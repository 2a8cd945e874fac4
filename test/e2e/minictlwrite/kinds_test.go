package minictlwrite

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/miniapi/miniapi/test/e2e/harness"
)

// The kinds of issue 10 through both tools: create configmap | secret |
// serviceaccount, expose, auth can-i | whoami, and get, describe and
// delete on ConfigMaps, Secrets, ServiceAccounts, Services, Leases and
// events.k8s.io Events.

var (
	clusterIPs = regexp.MustCompile(`\b10\.\d+\.\d+\.\d+\b`)
	nodePorts  = regexp.MustCompile(`\b3[0-2]\d\d\d\b`)
)

// maskService takes out what the server allocates per Service (uids,
// times, ClusterIPs, NodePorts), which differs between the two tools'
// objects.
func maskService(s string) string {
	s = harness.Mask(s)
	s = clusterIPs.ReplaceAllString(s, "<ip>")
	return nodePorts.ReplaceAllString(s, "<nodeport>")
}

// expectSameMasked is expectSame for outputs holding what the server
// allocated: both are compared after mask.
func expectSameMasked(t *testing.T, s *harness.Server, mask func(string) string, args ...string) harness.Result {
	t.Helper()
	k, m := both(s, "", args...)
	if mask(k.Stdout) != mask(normalize(m.Stdout)) || k.Stderr != normalize(m.Stderr) || k.ExitCode != m.ExitCode {
		t.Errorf("%v: outputs differ\n=== kubectl %s\n=== minictl %s", args, k, m)
	}
	return k
}

// kindFiles are the sources the create commands read.
func kindFiles(t *testing.T) string {
	t.Helper()
	dir := writeFiles(t, map[string]string{
		"app.properties":  "color=blue\nsize=2\n",
		"env.txt":         "\xef\xbb\xbfA=1\n# comment\n\n  B=two=2\n",
		"bad.env":         "1BAD=x\n",
		"dir/one":         "1\n",
		"dir/two.txt":     "2\n",
		"docker.json":     `{"auths":{}}`,
		"dir/.hidden-key": "h\n",
	})
	if err := os.WriteFile(filepath.Join(dir, "binary.dat"), []byte{0xff, 0xfe, 0x00, 0x01}, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestCreateConfigMapMatchesKubectl: every source flag, the dry-run modes
// and outputs, and kubectl's errors.
func TestCreateConfigMapMatchesKubectl(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	dir := kindFiles(t)
	f := func(name string) string { return filepath.Join(dir, name) }
	expectSame(t, s, "", "create", "configmap", "props", "-n", "NS", "--from-file="+f("app.properties"), "--from-file=renamed="+f("app.properties"), "--from-literal=x=1=2", "--from-file="+f("binary.dat"))
	expectSame(t, s, "", "create", "cm", "fromdir", "-n", "NS", "--from-file="+f("dir"))
	expectSame(t, s, "", "create", "cm", "fromenv", "-n", "NS", "--from-env-file="+f("env.txt"), "-o", "name")
	expectSame(t, s, "", "create", "cm", "dry", "-n", "NS", "--from-literal=a=b", "--dry-run=client", "-o", "yaml")
	expectSame(t, s, "", "create", "cm", "dry", "-n", "NS", "--from-literal=a=b", "--dry-run=client", "-o", "json")
	expectSame(t, s, "", "create", "cm", "dry", "--from-literal=a=b", "--dry-run=client", "-o", "yaml")
	expectSame(t, s, "", "create", "cm", "dry", "-n", "NS", "--from-literal=a=b", "--dry-run=client")
	expectSame(t, s, "", "create", "cm", "dry", "-n", "NS", "--from-literal=a=b", "--dry-run=server")
	expectSameMasked(t, s, harness.Mask, "create", "cm", "dry", "-n", "NS", "--from-literal=a=b", "--dry-run=server", "-o", "json")
	expectSameMasked(t, s, harness.Mask, "create", "cm", "shown", "-n", "NS", "--from-literal=a=b", "-o", "yaml")
	expectSame(t, s, "", "create", "cm", "path", "-n", "NS", "--from-literal=a=b", "-o", "jsonpath={.data.a}")

	for _, bad := range [][]string{
		{"props"}, // AlreadyExists
		{"Bad_Name", "--from-literal=a=b"},
		{},
		{"a", "b"},
		{"x", "--from-literal=nokey"},
		{"x", "--from-literal==v"},
		{"x", "--from-literal=bad/key=1"},
		{"x", "--from-literal=a=1", "--from-literal=a=2"},
		{"x", "--from-file=" + f("missing")},
		{"x", "--from-file=k=" + f("dir")},
		{"x", "--from-file==" + f("dir")},
		{"x", "--from-file=k="},
		{"x", "--from-file=a=b=c"},
		{"x", "--from-env-file=" + f("env.txt"), "--from-literal=a=b"},
		{"x", "--from-env-file=" + f("dir")},
		{"x", "--from-env-file=" + f("bad.env")},
		{"x", "--dry-run=bogus"},
	} {
		expectSameFails(t, s, "", append([]string{"create", "configmap", "-n", "NS"}, bad...)...)
	}
	expectSame(t, s, "", "describe", "configmap", "props", "fromdir", "fromenv", "-n", "NS")
}

// TestCreateSecretMatchesKubectl: generic, tls and docker-registry.
func TestCreateSecretMatchesKubectl(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	dir := kindFiles(t)
	f := func(name string) string { return filepath.Join(dir, name) }
	cert, key := harness.WriteSelfSigned(t, t.TempDir())
	otherCert, _ := harness.WriteSelfSigned(t, t.TempDir())

	expectSame(t, s, "", "create", "secret", "generic", "g1", "-n", "NS", "--from-literal=user=admin", "--from-file="+f("app.properties"), "--from-file="+f("binary.dat"))
	expectSame(t, s, "", "create", "secret", "generic", "g2", "-n", "NS", "--from-env-file="+f("env.txt"), "--type=example.com/custom")
	expectSame(t, s, "", "create", "secret", "generic", "dry", "-n", "NS", "--from-literal=a=b", "--dry-run=client", "-o", "yaml")
	expectSameMasked(t, s, harness.Mask, "create", "secret", "generic", "dry", "-n", "NS", "--from-literal=a=b", "--dry-run=server", "-o", "json")
	expectSame(t, s, "", "create", "secret", "tls", "t1", "-n", "NS", "--cert="+cert, "--key="+key)
	expectSame(t, s, "", "create", "secret", "docker-registry", "d1", "-n", "NS", "--docker-username=u", "--docker-password=p", "--docker-email=u@example.com")
	expectSame(t, s, "", "create", "secret", "docker-registry", "d2", "-n", "NS", "--from-file="+f("docker.json"), "--dry-run=client", "-o", "json")

	for _, bad := range [][]string{
		{"generic", "g1", "--from-literal=a=b"}, // AlreadyExists
		{"generic", "Bad_Name"},
		{"generic"},
		{"generic", "x", "--type=kubernetes.io/tls", "--from-literal=a=b"}, // required keys
		{"generic", "x", "--from-literal=a=1", "--from-literal=a=2"},
		{"generic", "x", "--from-literal=bad/key=1"},
		{"generic", "x", "--from-env-file=" + f("dir")},
		{"tls", "x", "--cert=" + otherCert, "--key=" + key},
		{"tls", "x", "--cert=" + f("missing"), "--key=" + key},
		{"tls", "x", "--cert=" + cert},
		{"docker-registry", "x", "--docker-username=u"},
		{"bogus", "x"},
	} {
		expectSameFails(t, s, "", append([]string{"create", "secret", "-n", "NS"}, bad...)...)
	}
	k, m := both(s, "", "create", "secret", "-n", "NS")
	if k.ExitCode != 1 || m.ExitCode != 1 || m.Stdout != "" {
		t.Errorf("create secret without a subcommand: kubectl %s\nminictl %s", k, m)
	}
	expectSame(t, s, "", "describe", "secret", "g1", "g2", "t1", "d1", "-n", "NS")
}

// TestCreateServiceAccountMatchesKubectl: create serviceaccount and its
// errors, then describe.
func TestCreateServiceAccountMatchesKubectl(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	expectSame(t, s, "", "create", "serviceaccount", "robot", "-n", "NS")
	expectSame(t, s, "", "create", "sa", "dry", "-n", "NS", "--dry-run=client", "-o", "yaml")
	expectSameMasked(t, s, harness.Mask, "create", "sa", "shown", "-n", "NS", "-o", "json")
	expectSameFails(t, s, "", "create", "sa", "robot", "-n", "NS")
	expectSameFails(t, s, "", "create", "sa", "Robot", "-n", "NS")
	expectSameFails(t, s, "", "create", "sa", "-n", "NS")
	expectSame(t, s, "", "describe", "sa", "robot", "-n", "NS")
}

const exposeManifest = `apiVersion: v1
kind: Pod
metadata:
  name: dns
  labels: {app: dns, tier: infra}
spec:
  containers:
  - name: c
    image: coredns
    ports: [{containerPort: 53, protocol: UDP}, {containerPort: 53, protocol: TCP}, {containerPort: 9153}]
---
apiVersion: v1
kind: Pod
metadata:
  name: bare
spec:
  containers:
  - name: c
    image: nginx
`

// TestExposeMatchesKubectl: the selector, ports, protocols and labels come
// from the exposed object; the flags override them; kubectl's errors.
func TestExposeMatchesKubectl(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	for _, ns := range []string{nsK, nsM} {
		s.MustRun(t, "kubectl", "create", "deployment", "web", "-n", ns, "--image=nginx", "--port=80")
		s.MustRun(t, "kubectl", "create", "deployment", "noport", "-n", ns, "--image=nginx")
		if r := s.Run("kubectl", exposeManifest, "apply", "-n", ns, "-f", "-"); r.ExitCode != 0 {
			t.Fatal(r)
		}
	}
	expectSame(t, s, "", "expose", "deployment", "web", "-n", "NS")
	expectSameMasked(t, s, maskService, "expose", "deployment/web", "-n", "NS", "--name=web2", "--port=8080", "--target-port=http", "-o", "yaml")
	expectSameMasked(t, s, maskService, "expose", "deploy", "noport", "-n", "NS", "--cluster-ip=None", "--name=headless", "-o", "json")
	expectSame(t, s, "", "expose", "pod", "dns", "-n", "NS", "--dry-run=client", "-o", "yaml")
	expectSame(t, s, "", "expose", "pod", "dns", "-n", "NS", "--name=dns-udp", "--port=53", "--protocol=UDP", "--type=NodePort")
	expectSameMasked(t, s, maskService, "expose", "svc", "web", "-n", "NS", "--name=web-lb", "--type=LoadBalancer", "--external-ip=192.0.2.7", "--dry-run=server", "-o", "yaml")
	expectSame(t, s, "", "expose", "service", "web", "-n", "NS", "--name=web3", "--selector=app=other,tier=x", "--labels=a=b", "--session-affinity=ClientIP", "--dry-run=client", "-o", "json")
	expectSame(t, s, "", "expose", "rs", "-n", "NS", "--dry-run=client")

	for _, bad := range [][]string{
		{"deployment", "web"}, // AlreadyExists
		{"deployment", "noport"},
		{"deployment", "missing"},
		{"pod", "bare"},
		{"deployment", "web", "--name=x", "--port=abc"},
		{"deployment", "web", "--name=x", "--session-affinity=Sticky"},
		{"deployment", "web", "--name=x", "--selector=bad"},
		{"deployment", "web", "--name=Bad_Name"},
		{"deployment"},
		{},
	} {
		expectSameFails(t, s, "", append([]string{"expose", "-n", "NS"}, bad...)...)
	}
	// A fixed ClusterIP can be taken only once: kubectl takes it, and
	// then both tools get the same refusal.
	s.MustRun(t, "kubectl", "expose", "deployment", "web", "-n", nsK, "--name=fixed", "--cluster-ip=10.96.100.100")
	expectSameFails(t, s, "", "expose", "deployment", "web", "-n", "NS", "--name=fixed2", "--cluster-ip=10.96.100.100")
	if k := s.Run("kubectl", "", "create", "configmap", "cm", "-n", nsK); k.ExitCode != 0 {
		t.Fatal(k)
	}
	if r := s.Run("minictl", "", "expose", "configmap", "cm", "-n", nsK); r.Stderr != "error: cannot expose a ConfigMap\n" || r.ExitCode != 1 {
		t.Errorf("expose configmap: %s", r)
	}
}

// TestAuthMatchesKubectl: can-i for resources, names, subresources and
// URLs, with kubectl's warnings; whoami in every output.
func TestAuthMatchesKubectl(t *testing.T) {
	t.Parallel()
	s := harness.Start(t)
	for _, args := range [][]string{
		{"can-i", "get", "pods"},
		{"can-i", "create", "deployments.apps", "-n", "kube-system"},
		{"can-i", "get", "deployments.apps/web", "--subresource=scale"},
		{"can-i", "list", "secrets", "-A"},
		{"can-i", "get", "nodes"},
		{"can-i", "list", "foo"},
		{"can-i", "list", "foo.bar"},
		{"can-i", "frob", "pods"},
		{"can-i", "impersonate", "users"},
		{"can-i", "get", "/healthz"},
		{"can-i", "frob", "/healthz"},
		{"can-i", "delete", "leases", "-q"},
		{"can-i", "--list"},
		{"can-i", "--list", "--no-headers", "-n", "kube-system"},
		{"whoami"},
	} {
		s.ExpectSame(t, append([]string{"auth"}, args...)...)
	}
	for _, args := range [][]string{
		{"can-i"},
		{"can-i", "get"},
		{"can-i", "get", "/healthz", "--subresource=x"},
		{"can-i", "--list", "get"},
		{"can-i", "--list", "-A"},
		{"can-i", "frob", "nodes", "--no-headers"},
		{"bogus"},
	} {
		if k := s.ExpectSame(t, append([]string{"auth"}, args...)...); k.ExitCode == 0 {
			t.Errorf("auth %v: kubectl exited 0", args)
		}
	}
	// The review's creationTimestamp is the moment each tool asked.
	for _, o := range []string{"yaml", "json"} {
		k, m := s.Both("", "auth", "whoami", "-o", o)
		harness.SameResult(t, []string{"auth", "whoami", "-o", o},
			harness.Result{Stdout: harness.Mask(k.Stdout), Stderr: k.Stderr, ExitCode: k.ExitCode},
			harness.Result{Stdout: harness.Mask(m.Stdout), Stderr: m.Stderr, ExitCode: m.ExitCode})
	}
}

const newKindsManifest = `apiVersion: v1
kind: ConfigMap
metadata: {name: settings, labels: {app: demo}, annotations: {note: hi}}
data: {a: "1", multi: "x\ny\n"}
binaryData: {blob: AAEC}
---
apiVersion: v1
kind: Secret
metadata: {name: creds}
type: Opaque
stringData: {password: s3cret}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: builder}
imagePullSecrets: [{name: reg1}, {name: reg2}]
---
apiVersion: v1
kind: Service
metadata: {name: front, labels: {app: front}}
spec:
  selector: {app: front}
  ports:
  - {name: http, port: 80, targetPort: 8080}
  - {name: admin, port: 9000, targetPort: admin, protocol: TCP}
---
apiVersion: v1
kind: Service
metadata: {name: ext}
spec: {type: ExternalName, externalName: example.com}
---
apiVersion: v1
kind: Service
metadata: {name: np}
spec:
  type: NodePort
  selector: {app: np}
  ports: [{port: 80}]
---
apiVersion: coordination.k8s.io/v1
kind: Lease
metadata: {name: leader}
spec: {holderIdentity: pod-a, leaseDurationSeconds: 15, leaseTransitions: 3, renewTime: "2026-01-01T00:00:00.000000Z"}
---
apiVersion: events.k8s.io/v1
kind: Event
metadata: {name: note1}
eventTime: "2026-01-01T00:00:00.000000Z"
reportingController: example.com/ctl
reportingInstance: ctl-1
action: Check
reason: Checked
type: Normal
note: all good
regarding: {kind: ConfigMap, name: settings, namespace: NS}
`

// TestNewKindsGetDescribeDeleteMatchKubectl: tables (default and wide),
// descriptions and deletion of every new kind. get and describe read one
// namespace with both tools; delete runs in each tool's own.
func TestNewKindsGetDescribeDeleteMatchKubectl(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	for _, ns := range []string{nsK, nsM} {
		if r := s.Run("kubectl", strings.ReplaceAll(newKindsManifest, "NS", ns), "apply", "-n", ns, "-f", "-"); r.ExitCode != 0 {
			t.Fatal(r)
		}
	}
	for _, typ := range []string{"configmaps", "secrets", "serviceaccounts", "services", "leases", "events.events.k8s.io", "cm,secret,sa,svc"} {
		s.ExpectSameTable(t, "get", typ, "-n", nsK)
		s.ExpectSameTable(t, "get", typ, "-n", nsK, "-o", "wide")
	}
	s.ExpectSameTable(t, "get", "services", "-A", "-o", "wide")
	for _, args := range [][]string{
		{"configmap", "settings"},
		{"secret", "creds"},
		{"serviceaccount", "builder"},
		{"serviceaccount", "default"},
		{"service", "front"},
		{"service", "ext"},
		{"service", "np"},
		{"lease", "leader"},
		{"events.events.k8s.io", "note1"},
		{"services"},
		{"cm,secret,sa,lease"},
		{"service", "missing"},
	} {
		s.ExpectSame(t, append([]string{"describe", "-n", nsK}, args...)...)
	}
	s.ExpectSame(t, "describe", "svc", "kubernetes", "-n", "default")

	for _, args := range [][]string{
		{"configmap", "settings"},
		{"secret", "creds"},
		{"sa", "builder"},
		{"svc", "front", "ext"},
		{"lease", "leader"},
		{"events.events.k8s.io", "note1"},
		{"svc,sa", "--all"},
	} {
		expectSame(t, s, "", append([]string{"delete", "-n", "NS"}, args...)...)
	}
	expectSameFails(t, s, "", "delete", "-n", "NS", "configmap", "settings")
	expectSameFails(t, s, "", "delete", "-n", "NS", "lease", "leader")
}
