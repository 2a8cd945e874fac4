package kubectl

import (
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
)

// TestDiscoveryAndExplain checks what kubectl learns from discovery and
// OpenAPI v3: api-resources, and explain.
func TestDiscoveryAndExplain(t *testing.T) {
	t.Parallel()
	s := start(t)

	expectOut(t, s, `NAME                  SHORTNAMES   APIVERSION   NAMESPACED   KIND
controllerrevisions                apps/v1      true         ControllerRevision
daemonsets            ds           apps/v1      true         DaemonSet
deployments           deploy       apps/v1      true         Deployment
replicasets           rs           apps/v1      true         ReplicaSet
statefulsets          sts          apps/v1      true         StatefulSet
`, "api-resources", "--api-group=apps")
	// Rows compared cell by cell: the column widths follow the longest
	// name served.
	res := ok(t, s, "api-resources")
	got := join(table(t, res.Stdout))
	for _, want := range []string{
		"configmaps | cm | v1 | true | ConfigMap\n",
		"events | ev | v1 | true | Event\n",
		"namespaces | ns | v1 | false | Namespace\n",
		"nodes | no | v1 | false | Node\n",
		"pods | po | v1 | true | Pod\n",
		"secrets | v1 | true | Secret\n",
		"serviceaccounts | sa | v1 | true | ServiceAccount\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("api-resources lacks %q:\n%s", want, res.Stdout)
		}
	}

	// The simulated nodes (--nodes=3 by default), with kube's node columns.
	rows := table(t, ok(t, s, "get", "nodes").Stdout)
	if join(rows[:1]) != "NAME | STATUS | ROLES | AGE | VERSION\n" || len(rows) != 4 {
		t.Errorf("get nodes:\n%s", join(rows))
	}
	for _, r := range rows[1:] {
		if len(r) != 5 || r[1] != "Ready" || r[2] != "<none>" {
			t.Errorf("node row %v", r)
		}
	}
	rows = table(t, ok(t, s, "get", "nodes", "-o", "wide").Stdout)
	if join(rows[:1]) != "NAME | STATUS | ROLES | AGE | VERSION | INTERNAL-IP | EXTERNAL-IP | OS-IMAGE | KERNEL-VERSION | CONTAINER-RUNTIME\n" {
		t.Errorf("get nodes -o wide header %v", rows[0])
	}

	out := ok(t, s, "explain", "deployment.spec.replicas").Stdout
	for _, want := range []string{"GROUP:      apps\n", "KIND:       Deployment\n", "VERSION:    v1\n", "FIELD: replicas <integer>\n", "DESCRIPTION:\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("explain lacks %q:\n%s", want, out)
		}
	}
	// The description is the API type's, word for word (kubectl wraps it).
	doc := appsv1.DeploymentSpec{}.SwaggerDoc()["replicas"]
	if got := strings.Join(strings.Fields(out[strings.Index(out, "DESCRIPTION:")+len("DESCRIPTION:"):]), " "); got != doc {
		t.Errorf("explain description = %q, want %q", got, doc)
	}

	out = ok(t, s, "explain", "deployment.spec").Stdout
	for _, want := range []string{"FIELD: spec <DeploymentSpec>", "replicas\t<integer>", "selector\t<LabelSelector> -required-", "strategy\t<DeploymentStrategy>", "template\t<PodTemplateSpec> -required-"} {
		if !strings.Contains(out, want) {
			t.Errorf("explain deployment.spec lacks %q:\n%s", want, out)
		}
	}
	out = ok(t, s, "explain", "pods.spec.containers.resources.limits").Stdout
	if !strings.Contains(out, "FIELD: limits <map[string]Quantity>") {
		t.Errorf("explain limits:\n%s", out)
	}
}

// TestExplainEnum: kubectl explain shows an enum field's values, which
// come from the Go markers through openapi-gen's definitions, as on
// kube-apiserver (its bytes: kubectl 1.37's explain template over the
// schema kube-apiserver 1.37 publishes for DeploymentStrategy.type).
func TestExplainEnum(t *testing.T) {
	t.Parallel()
	s := start(t)
	expectOut(t, s, `GROUP:      apps
KIND:       Deployment
VERSION:    v1

FIELD: type <string>
ENUM:
    Recreate
    RollingUpdate

DESCRIPTION:
    Type of deployment. Can be "Recreate" or "RollingUpdate". Default is
    RollingUpdate.
    
    Possible enum values:
     - `+"`"+`"Recreate"`+"`"+` Kill all existing pods before creating new ones.
     - `+"`"+`"RollingUpdate"`+"`"+` Replace the old ReplicaSets by new one using rolling
    update i.e gradually scale down the old ReplicaSets and scale up the new
    one.
    

`, "explain", "deployment.spec.strategy.type")

	// A field of an enum type, in its parent's list, shows the values on
	// one line.
	out := ok(t, s, "explain", "deployment.spec.strategy").Stdout
	if !strings.Contains(out, "  type\t<string>\n  enum: Recreate, RollingUpdate\n") {
		t.Errorf("explain deployment.spec.strategy:\n%s", out)
	}
}
