package minictlwrite

import (
	"strings"
	"testing"

	"github.com/miniapi/miniapi/test/e2e/harness"
)

// configMap is a ConfigMap manifest without a namespace (the tools get
// theirs from -n) holding data a=VALUE.
func configMap(name, value string) string {
	return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\n  labels:\n    ssa: test\ndata:\n  a: \"" + value + "\"\n"
}

// expectOut is expectSame that also pins kubectl's stdout, so that a case
// where both tools fail the same way does not pass.
func expectOut(t *testing.T, s *harness.Server, want, stdin string, args ...string) {
	t.Helper()
	if k := expectSame(t, s, stdin, args...); k.Stdout != want || k.ExitCode != 0 {
		t.Errorf("%v: kubectl printed %q (exit %d), want %q", args, k.Stdout, k.ExitCode, want)
	}
}

// TestServerSideApplyMatchesKubectl: apply --server-side creates and
// updates, a second manager conflicts (exit code and kubectl's hint on
// stderr) until --force-conflicts, and get --show-managed-fields prints
// the managers the server recorded.
func TestServerSideApplyMatchesKubectl(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	apply := []string{"apply", "--server-side", "-n", "NS", "-f", "-"}
	expectOut(t, s, "configmap/cm serverside-applied\n", configMap("cm", "1"), apply...)
	expectOut(t, s, "configmap/cm serverside-applied\n", configMap("cm", "2"), apply...)

	other := append([]string{"--field-manager=other"}, apply...)
	k := expectSame(t, s, configMap("cm", "3"), other...)
	if k.ExitCode != 1 || !strings.Contains(k.Stderr, `conflict with "kubectl"`) || !strings.Contains(k.Stderr, "--force-conflicts") {
		t.Errorf("second manager: want kubectl's conflict error, got %s", k)
	}
	expectOut(t, s, "configmap/cm serverside-applied\n", configMap("cm", "3"), append([]string{"--force-conflicts"}, other...)...)
	expectSameFails(t, s, configMap("cm", "4"), "apply", "--force-conflicts", "-n", "NS", "-f", "-")

	k = expectSameMasked(t, s, harness.Mask, "get", "cm", "cm", "-n", "NS", "-o", "yaml", "--show-managed-fields")
	if !strings.Contains(k.Stdout, "manager: other") || !strings.Contains(k.Stdout, "operation: Apply") {
		t.Errorf("get --show-managed-fields: no apply entry for other:\n%s", k.Stdout)
	}
	expectSameMasked(t, s, harness.Mask, "get", "cm", "-l", "ssa=test", "-n", "NS", "-o", "json", "--show-managed-fields")
	noName := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  labels:\n    a: b\n"
	expectSameFails(t, s, noName, apply...)
	expectSameFails(t, s, strings.Replace(noName, "metadata:\n", "metadata:\n  generateName: gen-\n", 1), apply...)

	// --field-manager names client-side apply's manager, too.
	expectOut(t, s, "configmap/csa created\n", configMap("csa", "1"), "apply", "--field-manager=mine", "-n", "NS", "-f", "-")
	k = expectSameMasked(t, s, harness.Mask, "get", "cm", "csa", "-n", "NS", "-o", "yaml", "--show-managed-fields")
	if !strings.Contains(k.Stdout, "manager: mine") {
		t.Errorf("client-side apply --field-manager=mine: no entry for mine:\n%s", k.Stdout)
	}
	k = expectSameMasked(t, s, harness.Mask, "get", "cm", "cm", "-n", "NS", "-o", "yaml")
	if strings.Contains(k.Stdout, "managedFields") {
		t.Errorf("get -o yaml printed managedFields without --show-managed-fields:\n%s", k.Stdout)
	}
}

// TestServerSideApplyMigratesClientSideApply: after a client-side apply,
// apply --server-side moves the fields of kubectl-client-side-apply to
// "kubectl" (so a key dropped from the manifest is removed) and keeps the
// last-applied annotation under kubectl-last-applied, as kubectl does.
func TestServerSideApplyMigratesClientSideApply(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	two := configMap("mig", "1") + "  b: \"2\"\n"
	expectOut(t, s, "configmap/mig created\n", two, "apply", "-n", "NS", "-f", "-")
	expectOut(t, s, "configmap/mig serverside-applied\n", configMap("mig", "1"), "apply", "--server-side", "-n", "NS", "-f", "-")
	k := expectSameMasked(t, s, harness.Mask, "get", "cm", "mig", "-n", "NS", "-o", "yaml", "--show-managed-fields")
	if strings.Contains(k.Stdout, "b: \"2\"") || !strings.Contains(k.Stdout, "manager: kubectl-last-applied") {
		t.Errorf("after migration: want b removed and kubectl-last-applied, got:\n%s", k.Stdout)
	}
}
