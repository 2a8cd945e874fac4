package minictl

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/miniapi/miniapi/test/e2e/harness"
)

// TestScaleMatchesKubectl covers scale's forms: TYPE NAME, TYPE/NAME,
// several names, -l, preconditions and --timeout.
func TestScaleMatchesKubectl(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	s.MustRun(t, "kubectl", "create", "deployment", "web", "--image=nginx", "--replicas=1")
	s.MustRun(t, "kubectl", "create", "deployment", "api", "--image=nginx", "--replicas=1")
	waitSettled(t, s, "web", 1)
	waitSettled(t, s, "api", 1)

	// Each step runs one tool, then the other with otherArgs (the same
	// unless a precondition must follow the first tool's change); both
	// must print the same.
	for _, c := range []struct {
		tool            string
		args, otherArgs []string
	}{
		{"kubectl", []string{"scale", "deploy", "web", "--replicas=2"}, nil},
		{"minictl", []string{"scale", "deploy", "web", "--replicas=3"}, nil},
		{"kubectl", []string{"scale", "deployment/web", "deployment/api", "--replicas=2"}, nil},
		{"minictl", []string{"scale", "deployment/web", "deployment/api", "--replicas=1"}, nil},
		{"kubectl", []string{"scale", "deploy", "web", "api", "--current-replicas=1", "--replicas=2"},
			[]string{"scale", "deploy", "web", "api", "--current-replicas=2", "--replicas=2"}},
		{"minictl", []string{"scale", "deploy", "web", "api", "--current-replicas=2", "--replicas=1"},
			[]string{"scale", "deploy", "web", "api", "--current-replicas=1", "--replicas=1"}},
		{"kubectl", []string{"scale", "deploy", "-l", "app=web", "--replicas=2"}, nil},
		{"minictl", []string{"scale", "deploy", "-l", "app=web", "--replicas=1"}, nil},
		{"kubectl", []string{"scale", "deploy", "--all", "--replicas=2"}, nil},
		{"minictl", []string{"scale", "deploy", "--all", "--replicas=1"}, nil},
		{"minictl", []string{"scale", "rs", "-l", "app=web", "--replicas=1"}, nil},
	} {
		k := s.MustRun(t, c.tool, c.args...)
		other := "kubectl"
		if c.tool == "kubectl" {
			other = "minictl"
		}
		if c.otherArgs == nil {
			c.otherArgs = c.args
		}
		o := s.Run(other, "", c.otherArgs...)
		if o.Stdout != k.Stdout || o.Stderr != k.Stderr || o.ExitCode != k.ExitCode {
			t.Errorf("%v:\n=== %s %s\n=== %s %s", c.args, c.tool, k, other, o)
		}
	}
	// The resourceVersion precondition, with the current one.
	rv := strings.TrimSpace(s.MustRun(t, "kubectl", "get", "deploy", "web", "-o", "jsonpath={.metadata.resourceVersion}").Stdout)
	m := s.MustRun(t, "minictl", "scale", "deploy", "web", "--resource-version="+rv, "--replicas=2")
	if m.Stdout != "deployment.apps/web scaled\n" {
		t.Errorf("--resource-version: %s", m)
	}
	// --timeout waits until the status has caught up.
	m = s.MustRun(t, "minictl", "scale", "deploy", "web", "--replicas=3", "--timeout=60s")
	if m.Stdout != "deployment.apps/web scaled\n" {
		t.Errorf("--timeout: %s", m)
	}
	st := s.MustRun(t, "kubectl", "get", "deploy", "web", "-o", "jsonpath={.spec.replicas} {.status.replicas}").Stdout
	if st != "3 3" {
		t.Errorf("after scale --timeout the status says %q, want \"3 3\"", st)
	}
}

// TestDiscoveryCommands: api-resources, version, cluster-info, completion.
func TestDiscoveryCommands(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	for _, args := range [][]string{
		{"api-resources"},
		{"api-resources", "--api-group=apps"},
		{"api-resources", "--api-group="},
		{"api-resources", "-o", "name"},
		{"api-resources", "-o", "wide"},
		{"api-resources", "--namespaced=false"},
		{"api-resources", "--sort-by=kind", "--no-headers"},
		{"api-resources", "--verbs=list,watch"},
	} {
		s.ExpectSame(t, args...)
	}

	// version: the same lines as kubectl's except Kustomize (minictl has none).
	k, m := s.Both("", "version")
	var kept []string
	for _, l := range strings.SplitAfter(k.Stdout, "\n") {
		if !strings.HasPrefix(l, "Kustomize Version:") {
			kept = append(kept, l)
		}
	}
	if m.Stdout != strings.Join(kept, "") || m.ExitCode != 0 {
		t.Errorf("version:\n=== kubectl %s\n=== minictl %s", k, m)
	}
	k, m = s.Both("", "version", "-o", "json")
	var kv, mv map[string]any
	if json.Unmarshal([]byte(k.Stdout), &kv) != nil || json.Unmarshal([]byte(m.Stdout), &mv) != nil {
		t.Fatalf("version -o json:\n=== kubectl %s\n=== minictl %s", k, m)
	}
	if kb, _ := json.Marshal(kv["serverVersion"]); string(kb) != mustJSON(mv["serverVersion"]) {
		t.Errorf("serverVersion differs: %s vs %s", kb, mustJSON(mv["serverVersion"]))
	}
	if cv, _ := mv["clientVersion"].(map[string]any); cv["gitVersion"] != "v1.37.2" {
		t.Errorf("clientVersion: %v", mv["clientVersion"])
	}

	ci := s.MustRun(t, "minictl", "cluster-info")
	if !strings.HasPrefix(ci.Stdout, "Kubernetes control plane is running at "+s.URL+"\n") {
		t.Errorf("cluster-info: %s", ci)
	}
	kci := s.Run("kubectl", "cluster-info")
	if !strings.HasPrefix(kci.Stdout+kci.Stderr, "Kubernetes control plane is running at "+s.URL+"\n") && !strings.Contains(kci.Stdout+kci.Stderr, "services") {
		t.Logf("kubectl cluster-info (for the record): %s", kci)
	}

	for shell, want := range map[string]string{"bash": "__start_minictl", "zsh": "#compdef minictl"} {
		r := s.MustRun(t, "minictl", "completion", shell)
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("completion %s lacks %q", shell, want)
		}
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestKubeconfigSelection: $KUBECONFIG with several files merged,
// --context, --kubeconfig, and the config commands, against kubectl.
func TestKubeconfigSelection(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	s.MustRun(t, "kubectl", "create", "namespace", "other")
	s.MustRun(t, "kubectl", "create", "deployment", "api", "--image=nginx", "-n", "other")

	dir := t.TempDir()
	second := filepath.Join(dir, "second")
	os.WriteFile(second, []byte(`apiVersion: v1
kind: Config
clusters:
- name: other-cluster
  cluster:
    server: `+s.URL+`
contexts:
- name: other
  context:
    cluster: other-cluster
    user: other-user
    namespace: other
users:
- name: other-user
  user:
    token: secret-token
`), 0o644)
	merged := []string{"KUBECONFIG=" + s.Kubeconfig + string(os.PathListSeparator) + second}
	for _, args := range [][]string{
		{"config", "get-contexts"},
		{"config", "get-contexts", "-o", "name"},
		{"config", "current-context"},
		{"config", "view"},
		{"config", "view", "--raw"},
		{"config", "view", "--minify"},
		{"config", "view", "-o", "json"},
		{"config", "view", "-o", "jsonpath={.contexts[*].name}"},
		{"get", "deploy", "-o", "name", "--context", "other"},
		{"get", "deploy", "-o", "name", "--context", "nope"},
		{"get", "deploy", "-o", "name", "-n", "other"},
	} {
		k := s.RunEnv("kubectl", merged, args...)
		m := s.RunEnv("minictl", merged, args...)
		harness.SameResult(t, args, k, m)
	}

	// use-context writes the file that holds current-context; run each tool
	// on its own copy and compare the files.
	files := map[string]string{}
	for _, tool := range []string{"kubectl", "minictl"} {
		cfg := filepath.Join(dir, tool+".kubeconfig")
		data, _ := os.ReadFile(s.Kubeconfig)
		os.WriteFile(cfg, data, 0o644)
		env := []string{"KUBECONFIG=" + cfg + string(os.PathListSeparator) + second}
		r := s.RunEnv(tool, env, "config", "use-context", "other")
		if r.Stdout != "Switched to context \"other\".\n" || r.ExitCode != 0 {
			t.Errorf("%s use-context: %s", tool, r)
		}
		after, _ := os.ReadFile(cfg)
		files[tool] = string(after)
		if tool == "minictl" {
			if r := s.RunEnv(tool, env, "get", "deploy", "-o", "name"); r.Stdout != "deployment.apps/api\n" {
				t.Errorf("after use-context other: %s", r)
			}
		}
	}
	if files["kubectl"] != files["minictl"] {
		t.Errorf("kubeconfig after use-context differs:\n=== kubectl\n%s\n=== minictl\n%s", files["kubectl"], files["minictl"])
	}

	// --kubeconfig wins over $KUBECONFIG; with nothing at all the server is
	// http://127.0.0.1:8080.
	r := s.RunEnv("minictl", []string{"KUBECONFIG=/nonexistent"}, "--kubeconfig", s.Kubeconfig, "get", "ns", "default", "-o", "name")
	if r.Stdout != "namespace/default\n" {
		t.Errorf("--kubeconfig: %s", r)
	}
	r = s.RunEnv("minictl", []string{"KUBECONFIG=", "HOME=" + dir}, "cluster-info")
	if !strings.Contains(r.Stdout+r.Stderr, "127.0.0.1:8080") {
		t.Errorf("default server: %s", r)
	}
}
