package minictl

import (
	"net"
	"strings"
	"testing"
)

// TestBadInputMatchesKubectl: each mistake gives kubectl's one-line
// message and exit status, and never a Go panic.
func TestBadInputMatchesKubectl(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	s.MustRun(t, "kubectl", "create", "deployment", "web", "--image=nginx", "--replicas=1")
	s.MustRun(t, "kubectl", "create", "deployment", "api", "--image=nginx", "--replicas=1", "-n", "kube-system")
	waitSettled(t, s, "web", 1)

	for _, args := range [][]string{
		{"get", "nosuchresource"},
		{"get", "deploy,nosuchresource"},
		{"get", "nosuchresource/x"},
		{"get", "deploy", "-l", "app in (web"},
		{"get", "pods", "--field-selector", "nosuchfield=x"},
		{"get", "deploy", "-o", "jsonpath={.metadata.name"},
		{"get", "deploy", "-o", "jsonpath="},
		{"get", "deploy", "-o", "custom-columns=NAME"},
		{"get", "deploy", "-o", "custom-columns=A:{.a}{.b}"},
		{"get", "deploy", "-o", "custom-columns-file=/nonexistent"},
		{"get", "deploy", "-o", "jsonpath-file=/nonexistent"},
		{"get", "deploy", "-A", "-o", "name", "--sort-by={.metadata.name"},
		{"get", "deploy", "-A", "-o", "name", "--sort-by=.metadata.nope"},
		{"get", "deploy", "-w", "web", "nope"},
		{"scale", "deploy", "nope", "--replicas=2"},
		{"scale", "deploy", "web"},
		{"scale", "deploy", "web", "--replicas=3", "--current-replicas=7"},
		{"scale", "deploy", "web", "--replicas=3", "--resource-version=1"},
		{"scale", "nosuchresource", "x", "--replicas=1"},
		{"config", "use-context", "nope"},
		{"get", "pods", "--nope"},
		{"scale", "deploy", "web", "--replicas=x"},
		{"config", "get-contexts", "nope"},
	} {
		k := s.ExpectSame(t, args...)
		if k.ExitCode == 0 {
			t.Errorf("%v: kubectl exited 0; this case tests nothing", args)
		}
	}

	// An unknown -o value: kubectl lists formats minictl lacks (go-template,
	// kyaml), so only the start of the message is the same.
	k, m := s.Both("", "get", "deploy", "-o", "foo")
	prefix := `error: unable to match a printer suitable for the output format "foo", allowed formats are: `
	if !strings.HasPrefix(k.Stderr, prefix) || !strings.HasPrefix(m.Stderr, prefix) || k.ExitCode != m.ExitCode {
		t.Errorf("-o foo:\n=== kubectl %s\n=== minictl %s", k, m)
	}

	// Unreachable server: kubectl first logs discovery failures through
	// klog; its last line, the message, is what minictl prints alone.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	for _, args := range [][]string{{"get", "pods"}, {"scale", "deploy", "web", "--replicas=1"}, {"api-resources"}} {
		args = append([]string{"--server", "http://" + addr}, args...)
		k, m := s.Both("", args...)
		want := "The connection to the server " + addr + " was refused - did you specify the right host or port?\n"
		if m.Stderr != want || m.ExitCode != 1 || !strings.HasSuffix(k.Stderr, want) || k.ExitCode != 1 || m.Stdout != k.Stdout {
			t.Errorf("%v:\n=== kubectl %s\n=== minictl %s", args, k, m)
		}
	}

	// Nothing reaches the user as a Go panic or a stack trace.
	for _, args := range [][]string{
		{"get"}, {"get", ""}, {"get", "/"}, {"get", "deploy/"}, {"get", "deploy", "-o", "custom-columns=:"},
		{"get", "deploy", "-L", ""}, {"scale"}, {"config", "view", "-o", "jsonpath={"}, {"nosuchcommand"},
	} {
		m := s.Run("minictl", "", args...)
		if m.ExitCode == 0 && args[0] != "get" || strings.Contains(m.Stderr, "goroutine ") || strings.Contains(m.Stderr, "panic") {
			t.Errorf("%v: %s", args, m)
		}
	}
}
