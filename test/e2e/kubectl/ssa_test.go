package kubectl

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
)

// What kube-apiserver 1.37 answered to the same commands
// (../shared/reference/kinds-crd-ssa-1.37.md, section 24).

const conflictHelp = `Please review the fields above--they currently have other managers. Here
are the ways you can resolve this warning:
* If you intend to manage all of these fields, please re-run the apply
  command with the ` + "`--force-conflicts`" + ` flag.
* If you do not intend to manage all of the fields, please edit your
  manifest to remove references to the fields that should keep their
  current managers.
* You may co-own fields by updating your manifest to match the existing
  value; in this case, you'll become the manager if the other manager(s)
  stop managing the field (remove it from their configuration).
See https://kubernetes.io/docs/reference/using-api/server-side-apply/#conflicts
`

var (
	timeValue      = regexp.MustCompile(`("time":|time: )"[^"]*"`)
	creationValue  = regexp.MustCompile(`creationTimestamp: "[^"]*"`)
	diffHeaderLine = regexp.MustCompile(`(?m)^(diff|---|\+\+\+) .*$`)
)

func maskTimes(s string) string {
	s = timeValue.ReplaceAllString(s, `${1}"T"`)
	return creationValue.ReplaceAllString(s, `creationTimestamp: "T"`)
}

// TestServerSideApplyKubectl: kubectl apply --server-side, a conflicting
// apply by another manager, --force-conflicts, and kubectl diff.
func TestServerSideApplyKubectl(t *testing.T) {
	t.Parallel()
	s := start(t)
	fast := manifest(t, "ssa-cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ssa-kubectl\ndata:\n  mode: fast\n")
	slow := manifest(t, "ssa-cm-other.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ssa-kubectl\ndata:\n  mode: slow\n")

	expectOut(t, s, "configmap/ssa-kubectl serverside-applied\n", "apply", "--server-side", "-f", fast)
	res := ok(t, s, "get", "cm", "ssa-kubectl", "-o", "yaml", "--show-managed-fields")
	want := `apiVersion: v1
data:
  mode: fast
kind: ConfigMap
metadata:
  creationTimestamp: "T"
  managedFields:
  - apiVersion: v1
    fieldsType: FieldsV1
    fieldsV1:
      f:data:
        f:mode: {}
    manager: kubectl
    operation: Apply
    time: "T"
  name: ssa-kubectl
  namespace: default
`
	if got := maskTimes(res.Stdout); !strings.HasPrefix(got, want) {
		t.Errorf("managedFields after apply:\n%s\nwant prefix\n%s", got, want)
	}
	expectOut(t, s, "configmap/ssa-kubectl serverside-applied\n", "apply", "--server-side", "-f", fast)
	fails(t, s, "error: Apply failed with 1 conflict: conflict with \"kubectl\": .data.mode\n"+conflictHelp,
		"apply", "--server-side", "--field-manager=other", "-f", slow)
	expectOut(t, s, "configmap/ssa-kubectl serverside-applied\n", "apply", "--server-side", "--field-manager=other", "--force-conflicts", "-f", slow)
	res = ok(t, s, "get", "cm", "ssa-kubectl", "-o", "jsonpath={.metadata.managedFields}")
	if got := maskTimes(res.Stdout); got != `[{"apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:data":{"f:mode":{}}},"manager":"other","operation":"Apply","time":"T"}]` {
		t.Errorf("managedFields after force: %s", res.Stdout)
	}

	res = s.Run("kubectl", "", "diff", "-f", fast)
	wantDiff := ` apiVersion: v1
 data:
-  mode: slow
+  mode: fast
 kind: ConfigMap
 metadata:
   creationTimestamp: "T"
`
	if got := maskTimes(diffHeaderLine.ReplaceAllString(res.Stdout, "")); res.ExitCode != 1 || !strings.Contains(got, wantDiff) {
		t.Errorf("kubectl diff: %s", res)
	}
	res = s.Run("kubectl", "", "diff", "--server-side", "-f", fast)
	if res.ExitCode != 2 || !strings.HasSuffix(res.Stderr, "Error from server (Conflict): Apply failed with 1 conflict: conflict with \"other\": .data.mode\n") {
		t.Errorf("kubectl diff --server-side: %s", res)
	}
	if res := s.Run("kubectl", "", "diff", "-f", slow); res.ExitCode != 0 || res.Stdout != "" {
		t.Errorf("kubectl diff of the live configuration: %s", res)
	}
}

// clientSideApplyEntry is kube's managedFields entry for a client-side
// kubectl apply of dep.yaml (defaults included: they were set when the
// object was created).
const clientSideApplyEntry = `  - apiVersion: apps/v1
    fieldsType: FieldsV1
    fieldsV1:
      f:metadata:
        f:annotations:
          .: {}
          f:kubectl.kubernetes.io/last-applied-configuration: {}
      f:spec:
        f:progressDeadlineSeconds: {}
REPLICAS        f:revisionHistoryLimit: {}
        f:selector: {}
        f:strategy:
          f:rollingUpdate:
            .: {}
            f:maxSurge: {}
            f:maxUnavailable: {}
          f:type: {}
        f:template:
          f:metadata:
            f:labels:
              .: {}
              f:app: {}
          f:spec:
            f:containers:
              k:{"name":"nginx"}:
                .: {}
                f:image: {}
                f:imagePullPolicy: {}
                f:name: {}
                f:resources: {}
                f:terminationMessagePath: {}
                f:terminationMessagePolicy: {}
            f:dnsPolicy: {}
            f:restartPolicy: {}
            f:schedulerName: {}
            f:securityContext: {}
            f:terminationGracePeriodSeconds: {}
    manager: kubectl-client-side-apply
    operation: Update
    time: "T"
`

// TestManagedFieldsScaleAndMigration: a client-side kubectl apply, then
// kubectl scale (an entry for the scale subresource, without a time, as
// kube writes it), then kubectl apply --server-side: its conflict with
// the scale entry, and with --force-conflicts kubectl's migration of the
// client-side entries to server-side ones.
func TestManagedFieldsScaleAndMigration(t *testing.T) {
	t.Parallel()
	s := start(t)
	dep := manifest(t, "dep.yaml", `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 1
  selector:
    matchLabels:
      app: webd
  template:
    metadata:
      labels:
        app: webd
    spec:
      containers:
      - name: nginx
        image: nginx
`)
	expectOut(t, s, "deployment.apps/web created\n", "apply", "-f", dep)
	managed := func() string {
		out := ok(t, s, "get", "deploy", "web", "-o", "yaml", "--show-managed-fields").Stdout
		return maskTimes(out)
	}
	if got, want := managed(), strings.Replace(clientSideApplyEntry, "REPLICAS", "        f:replicas: {}\n", 1); !strings.Contains(got, want) {
		t.Errorf("after client-side apply:\n%s\nwant an entry\n%s", got, want)
	}
	eventually(t, 30*time.Second, func() string {
		if got := managed(); !strings.Contains(got, "manager: kube-controller-manager\n    operation: Update\n    subresource: status\n") {
			return "no status entry of kube-controller-manager:\n" + got
		}
		return ""
	})

	expectOut(t, s, "deployment.apps/web scaled\n", "scale", "deploy", "web", "--replicas=2")
	got := managed()
	scaleEntry := `  managedFields:
  - apiVersion: apps/v1
    fieldsType: FieldsV1
    fieldsV1:
      f:spec:
        f:replicas: {}
    manager: kubectl
    operation: Update
    subresource: scale
`
	if !strings.Contains(got, scaleEntry) || !strings.Contains(got, strings.Replace(clientSideApplyEntry, "REPLICAS", "", 1)) {
		t.Errorf("after kubectl scale:\n%s", got)
	}

	fails(t, s, "error: Apply failed with 1 conflict: conflict with \"kubectl\" with subresource \"scale\" using apps/v1: .spec.replicas\n"+conflictHelp,
		"apply", "--server-side", "-f", dep)
	expectOut(t, s, "deployment.apps/web serverside-applied\n", "apply", "--server-side", "--force-conflicts", "-f", dep)
	expectOut(t, s, "kubectl-last-applied Apply \nkubectl Apply \nkube-controller-manager Update status\n",
		"get", "deploy", "web", "-o", `jsonpath={range .metadata.managedFields[*]}{.manager} {.operation} {.subresource}{"\n"}{end}`)
}

// TestServerSideApplyClientGo: client-go's typed Apply records the
// manager's fields, answers another manager's conflicting apply with a
// 409 naming the owner, and takes the field over with Force.
func TestServerSideApplyClientGo(t *testing.T) {
	t.Parallel()
	s := start(t)
	cms := s.Client().CoreV1().ConfigMaps("default")
	ctx := context.Background()
	cfg := corev1ac.ConfigMap("typed", "default").WithData(map[string]string{"a": "1", "b": "2"})
	cm, err := cms.Apply(ctx, cfg, metav1.ApplyOptions{FieldManager: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	if mf := cm.ManagedFields; len(mf) != 1 || mf[0].Manager != "alice" || mf[0].Operation != metav1.ManagedFieldsOperationApply ||
		mf[0].FieldsV1.GetRawString() != `{"f:data":{"f:a":{},"f:b":{}}}` {
		t.Errorf("managedFields after alice's apply: %+v", mf)
	}

	bob := corev1ac.ConfigMap("typed", "default").WithData(map[string]string{"a": "bob"})
	_, err = cms.Apply(ctx, bob, metav1.ApplyOptions{FieldManager: "bob"})
	if !apierrors.IsConflict(err) || err.Error() != `Apply failed with 1 conflict: conflict with "alice": .data.a` {
		t.Fatalf("bob's conflicting apply: %v", err)
	}
	cm, err = cms.Apply(ctx, bob, metav1.ApplyOptions{FieldManager: "bob", Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if cm.Data["a"] != "bob" || cm.Data["b"] != "2" || len(cm.ManagedFields) != 2 {
		t.Errorf("after bob's forced apply: %v %+v", cm.Data, cm.ManagedFields)
	}

	// alice stops applying b: it goes, as nobody else owns it.
	cm, err = cms.Apply(ctx, corev1ac.ConfigMap("typed", "default"), metav1.ApplyOptions{FieldManager: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	if _, has := cm.Data["b"]; has || cm.Data["a"] != "bob" {
		t.Errorf("after alice dropped b: %v", cm.Data)
	}
}
