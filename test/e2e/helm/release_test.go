package helm

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// listedRelease is one row of `helm list -o json`.
type listedRelease struct {
	Name       string `json:"name"`
	Namespace  string `json:"namespace"`
	Revision   string `json:"revision"`
	Status     string `json:"status"`
	Chart      string `json:"chart"`
	AppVersion string `json:"app_version"`
}

// revision is one row of `helm history -o json`.
type revision struct {
	Revision    int    `json:"revision"`
	Status      string `json:"status"`
	Chart       string `json:"chart"`
	Description string `json:"description"`
}

// installDemo runs `helm create demo` and `helm install demo ./demo`, and
// returns how long the install took.
func installDemo(t *testing.T, c *cluster) time.Duration {
	t.Helper()
	c.ok(t, "create", c.path("demo"))
	began := time.Now()
	res := c.ok(t, "install", "demo", c.path("demo"))
	took := time.Since(began)
	for _, want := range []string{"NAME: demo\n", "NAMESPACE: default\n", "STATUS: deployed\n", "REVISION: 1\n"} {
		if !strings.Contains(res.Stdout, want) {
			t.Errorf("helm install printed no %q:\n%s", want, res)
		}
	}
	return took
}

func TestInstallCreatedChart(t *testing.T) {
	t.Parallel()
	c := start(t, 100*time.Millisecond)
	took := installDemo(t, c)
	t.Logf("helm install demo ./demo took %s", took.Round(time.Millisecond))

	// The chart's objects, labelled and annotated as Helm's own.
	cs, ctx := c.Client(), context.Background()
	dep, err := cs.AppsV1().Deployments("default").Get(ctx, "demo", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := dep.Labels["app.kubernetes.io/managed-by"]; got != "Helm" {
		t.Errorf("deployment label managed-by = %q, want Helm", got)
	}
	if got := dep.Annotations["meta.helm.sh/release-name"]; got != "demo" {
		t.Errorf("deployment annotation release-name = %q, want demo", got)
	}
	svc, err := cs.CoreV1().Services("default").Get(ctx, "demo", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if svc.Spec.ClusterIP == "" || svc.Spec.ClusterIP == "None" {
		t.Errorf("service demo has clusterIP %q, want an allocated one", svc.Spec.ClusterIP)
	}
	if _, err := cs.CoreV1().ServiceAccounts("default").Get(ctx, "demo", metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	}

	// The release is one Secret, as Helm's default driver stores it.
	expectReleaseSecrets(t, c, "demo", map[int]string{1: "deployed"})

	var listed []listedRelease
	c.okJSON(t, &listed, "list")
	want := []listedRelease{{Name: "demo", Namespace: "default", Revision: "1", Status: "deployed", Chart: "demo-0.1.0", AppVersion: "1.16.0"}}
	if !slices.Equal(listed, want) {
		t.Errorf("helm list = %+v, want %+v", listed, want)
	}
	status := c.ok(t, "status", "demo").Stdout
	for _, line := range []string{"NAME: demo", "NAMESPACE: default", "STATUS: deployed", "REVISION: 1"} {
		if !slices.Contains(strings.Split(status, "\n"), line) {
			t.Errorf("helm status has no line %q:\n%s", line, status)
		}
	}

	// The simulated kubelet makes the deployment's pod ready.
	eventually(t, 30*time.Second, func() string {
		d, err := cs.AppsV1().Deployments("default").Get(ctx, "demo", metav1.GetOptions{})
		if err != nil {
			return err.Error()
		}
		if d.Status.AvailableReplicas != 1 {
			return fmt.Sprintf("deployment demo has %d available replicas, want 1", d.Status.AvailableReplicas)
		}
		return ""
	})
}

func TestUpgradeHistoryRollback(t *testing.T) {
	t.Parallel()
	c := start(t, 100*time.Millisecond)
	installDemo(t, c)

	res := c.ok(t, "upgrade", "demo", c.path("demo"), "--set", "replicaCount=3")
	if !strings.Contains(res.Stdout, `Release "demo" has been upgraded.`) {
		t.Errorf("helm upgrade printed:\n%s", res)
	}
	expectReplicas(t, c, "demo", 3)
	expectHistory(t, c, "demo", []revision{
		{1, "superseded", "demo-0.1.0", "Install complete"},
		{2, "deployed", "demo-0.1.0", "Upgrade complete"},
	})
	expectReleaseSecrets(t, c, "demo", map[int]string{1: "superseded", 2: "deployed"})

	res = c.ok(t, "rollback", "demo", "1")
	if !strings.Contains(res.Stdout, "Rollback was a success!") {
		t.Errorf("helm rollback printed:\n%s", res)
	}
	expectReplicas(t, c, "demo", 1)
	expectHistory(t, c, "demo", []revision{
		{1, "superseded", "demo-0.1.0", "Install complete"},
		{2, "superseded", "demo-0.1.0", "Upgrade complete"},
		{3, "deployed", "demo-0.1.0", "Rollback to 1"},
	})
	expectReleaseSecrets(t, c, "demo", map[int]string{1: "superseded", 2: "superseded", 3: "deployed"})

	var listed []listedRelease
	c.okJSON(t, &listed, "list")
	if len(listed) != 1 || listed[0].Revision != "3" || listed[0].Status != "deployed" {
		t.Errorf("helm list = %+v, want demo at revision 3, deployed", listed)
	}
}

func TestUninstall(t *testing.T) {
	t.Parallel()
	c := start(t, 100*time.Millisecond)
	installDemo(t, c)

	res := c.ok(t, "uninstall", "demo")
	if res.Stdout != "release \"demo\" uninstalled\n" {
		t.Errorf("helm uninstall printed:\n%s", res)
	}
	cs, ctx := c.Client(), context.Background()
	gone := map[string]error{}
	_, gone["deployment"] = cs.AppsV1().Deployments("default").Get(ctx, "demo", metav1.GetOptions{})
	_, gone["service"] = cs.CoreV1().Services("default").Get(ctx, "demo", metav1.GetOptions{})
	_, gone["serviceaccount"] = cs.CoreV1().ServiceAccounts("default").Get(ctx, "demo", metav1.GetOptions{})
	for kind, err := range gone {
		if !apierrors.IsNotFound(err) {
			t.Errorf("%s demo after uninstall: %v, want NotFound", kind, err)
		}
	}
	expectReleaseSecrets(t, c, "demo", map[int]string{})

	var listed []listedRelease
	c.okJSON(t, &listed, "list")
	if len(listed) != 0 {
		t.Errorf("helm list after uninstall = %+v, want none", listed)
	}
	if res := c.helm(t, "status", "demo"); res.ExitCode != 1 || res.Stderr != "Error: release: not found\n" {
		t.Errorf("helm status of an uninstalled release: %s", res)
	}
	// The garbage collector removes what the deployment owned.
	eventually(t, 30*time.Second, func() string {
		pods, err := cs.CoreV1().Pods("default").List(ctx, metav1.ListOptions{LabelSelector: "app.kubernetes.io/instance=demo"})
		if err != nil {
			return err.Error()
		}
		if n := len(pods.Items); n != 0 {
			return fmt.Sprintf("%d pods of demo are left", n)
		}
		return ""
	})
}

// expectReplicas checks the deployment asks for n replicas.
func expectReplicas(t *testing.T, c *cluster, name string, n int32) {
	t.Helper()
	d, err := c.Client().AppsV1().Deployments("default").Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Spec.Replicas == nil || *d.Spec.Replicas != n {
		t.Errorf("deployment %s has spec.replicas %v, want %d", name, d.Spec.Replicas, n)
	}
}

// expectHistory checks `helm history` lists exactly these revisions.
func expectHistory(t *testing.T, c *cluster, release string, want []revision) {
	t.Helper()
	var got []revision
	c.okJSON(t, &got, "history", release)
	if !slices.Equal(got, want) {
		t.Errorf("helm history %s:\n got %+v\nwant %+v", release, got, want)
	}
}

// expectReleaseSecrets checks the release's Secrets in default are exactly
// one per revision, named and labelled as Helm's secrets driver writes them,
// with these statuses (revision → status).
func expectReleaseSecrets(t *testing.T, c *cluster, release string, want map[int]string) {
	t.Helper()
	list, err := c.Client().CoreV1().Secrets("default").List(context.Background(),
		metav1.ListOptions{LabelSelector: "owner=helm,name=" + release})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, s := range list.Items {
		if s.Type != "helm.sh/release.v1" || len(s.Data["release"]) == 0 {
			t.Errorf("secret %s has type %q and %d bytes of release, want helm.sh/release.v1 with the release", s.Name, s.Type, len(s.Data["release"]))
		}
		got[s.Name] = s.Labels["version"] + "/" + s.Labels["status"]
	}
	wantNames := map[string]string{}
	for rev, status := range want {
		wantNames[fmt.Sprintf("sh.helm.release.v1.%s.v%d", release, rev)] = fmt.Sprintf("%d/%s", rev, status)
	}
	if fmt.Sprint(got) != fmt.Sprint(wantNames) {
		t.Errorf("release secrets (name: version/status):\n got %v\nwant %v", got, wantNames)
	}
}
