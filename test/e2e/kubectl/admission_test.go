package kubectl

import (
	"strings"
	"testing"
	"time"

	"github.com/miniapi/miniapi/test/e2e/harness"
)

// What kube-apiserver's default admission plugins do to a new object, and
// the bootstrap RBAC roles a new cluster has, through the real kubectl:
// LimitRanger as section 20 of ../shared/reference/kinds-crd-ssa-1.37.md
// records it, DefaultStorageClass, and kube's bootstrap ClusterRoles and
// ClusterRoleBindings.

const limitsYAML = `apiVersion: v1
kind: LimitRange
metadata:
  name: defaults
  namespace: lr-demo
spec:
  limits:
  - type: Container
    default:
      cpu: 500m
      memory: 256Mi
    defaultRequest:
      cpu: 100m
    max:
      memory: 1Gi
`

func TestLimitRangerAdmission(t *testing.T) {
	t.Parallel()
	s := start(t)
	expectOut(t, s, "namespace/lr-demo created\n", "create", "namespace", "lr-demo")
	expectOut(t, s, "limitrange/defaults created\n", "apply", "-f", manifest(t, "limits.yaml", limitsYAML))

	expectOut(t, s, "pod/lr1 created\n", "run", "lr1", "-n", "lr-demo", "--image=nginx")
	want := `{"kubernetes.io/limit-ranger":"LimitRanger plugin set: cpu, memory request for container lr1; cpu, memory limit for container lr1"} ` +
		`{"limits":{"cpu":"500m","memory":"256Mi"},"requests":{"cpu":"100m","memory":"256Mi"}}`
	if got := jsonpath(t, s, "{.metadata.annotations} {.spec.containers[0].resources}", "get", "pod", "lr1", "-n", "lr-demo"); got != want {
		t.Errorf("lr1:\n got %s\nwant %s", got, want)
	}
	fails(t, s, `Error from server (Forbidden): pods "lr2" is forbidden: maximum memory usage per Container is 1Gi, but limit is 2Gi`+"\n",
		"run", "lr2", "-n", "lr-demo", "--image=nginx",
		`--overrides={"spec":{"containers":[{"name":"lr2","image":"nginx","resources":{"limits":{"memory":"2Gi"}}}]}}`)

	// Pods a controller makes are admitted the same way.
	expectOut(t, s, "deployment.apps/web created\n", "create", "deployment", "web", "-n", "lr-demo", "--image=nginx")
	eventually(t, 30*time.Second, func() string {
		got := jsonpath(t, s, "{.items[*].spec.containers[0].resources.limits.cpu}", "get", "pods", "-n", "lr-demo", "-l", "app=web")
		if got != "500m" {
			return "web pod's cpu limit: " + got
		}
		return ""
	})
}

const claimAdmissionYAML = `apiVersion: v1
kind: LimitRange
metadata:
  name: storage
spec:
  limits:
  - type: PersistentVolumeClaim
    max:
      storage: 2Gi
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: standard
  annotations:
    storageclass.kubernetes.io/is-default-class: "true"
provisioner: example.com/disk
`

func claimYAML(name, size string) string {
	return "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: " + name +
		"\nspec:\n  accessModes: [ReadWriteOnce]\n  resources:\n    requests:\n      storage: " + size + "\n"
}

func TestClaimAdmission(t *testing.T) {
	t.Parallel()
	s := start(t)
	// No StorageClass exists on a new server, as on kube-apiserver.
	if res := ok(t, s, "get", "storageclasses"); res.Stdout != "" || res.Stderr != "No resources found\n" {
		t.Errorf("kubectl get storageclasses: %s", res)
	}
	expectOut(t, s, "persistentvolumeclaim/early created\n", "create", "-f", manifest(t, "early.yaml", claimYAML("early", "1Gi")))
	if got := jsonpath(t, s, "{.spec.storageClassName}", "get", "pvc", "early"); got != "" {
		t.Errorf("claim without a default class got %q", got)
	}

	expectOut(t, s, "limitrange/storage created\nstorageclass.storage.k8s.io/standard created\n",
		"apply", "-f", manifest(t, "admission.yaml", claimAdmissionYAML))
	expectOut(t, s, "persistentvolumeclaim/data created\n", "create", "-f", manifest(t, "data.yaml", claimYAML("data", "1Gi")))
	if got := jsonpath(t, s, "{.spec.storageClassName}", "get", "pvc", "data"); got != "standard" {
		t.Errorf("claim's class %q, want the default standard", got)
	}
	big := manifest(t, "big.yaml", claimYAML("big", "5Gi"))
	fails(t, s, `Error from server (Forbidden): error when creating "`+big+`": persistentvolumeclaims "big" is forbidden: `+
		"maximum storage usage per PersistentVolumeClaim is 2Gi, but request is 5Gi\n", "create", "-f", big)
}

func TestBootstrapRBAC(t *testing.T) {
	t.Parallel()
	s := start(t)
	names := ok(t, s, "get", "clusterroles", "-o", "name").Stdout
	want := "clusterrole.rbac.authorization.k8s.io/admin\nclusterrole.rbac.authorization.k8s.io/cluster-admin\n" +
		"clusterrole.rbac.authorization.k8s.io/edit\nclusterrole.rbac.authorization.k8s.io/system:aggregate-to-admin\n" +
		"clusterrole.rbac.authorization.k8s.io/system:aggregate-to-edit\nclusterrole.rbac.authorization.k8s.io/system:aggregate-to-view\n" +
		"clusterrole.rbac.authorization.k8s.io/system:basic-user\nclusterrole.rbac.authorization.k8s.io/system:discovery\n" +
		"clusterrole.rbac.authorization.k8s.io/system:public-info-viewer\nclusterrole.rbac.authorization.k8s.io/view\n"
	if names != want {
		t.Errorf("clusterroles:\n got %s\nwant %s", names, want)
	}
	// The reference's `kubectl get clusterroles | head -5`, less the
	// secret-reader it had created.
	got := ok(t, s, "get", "clusterroles").Stdout
	head := strings.Join(strings.SplitAfter(got, "\n")[:4], "")
	expectHead := "NAME                        CREATED AT\nadmin                       2026-12-01T08:42:38Z\n" +
		"cluster-admin               2026-12-01T08:42:37Z\nedit                        2026-12-01T08:42:38Z\n"
	if harness.Mask(head) != harness.Mask(expectHead) {
		t.Errorf("kubectl get clusterroles:\n got %s\nwant %s", head, expectHead)
	}

	expectYAML(t, s, `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  annotations:
    rbac.authorization.kubernetes.io/autoupdate: "true"
  creationTimestamp: "2026-12-01T08:42:37Z"
  labels:
    kubernetes.io/bootstrapping: rbac-defaults
  name: cluster-admin
  resourceVersion: "70"
  uid: 5d7c1d0e-2b1f-4d0b-9a54-1a1c9b3c0c11
rules:
- apiGroups:
  - '*'
  resources:
  - '*'
  verbs:
  - '*'
- nonResourceURLs:
  - '*'
  verbs:
  - '*'
`, "get", "clusterrole", "cluster-admin")
	expectYAML(t, s, `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  annotations:
    rbac.authorization.kubernetes.io/autoupdate: "true"
  creationTimestamp: "2026-12-01T08:42:37Z"
  labels:
    kubernetes.io/bootstrapping: rbac-defaults
  name: system:public-info-viewer
  resourceVersion: "75"
  uid: 0f3c6a7e-8d2b-4b4e-9f0a-6c1d2e3f4a5b
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: system:public-info-viewer
subjects:
- apiGroup: rbac.authorization.k8s.io
  kind: Group
  name: system:authenticated
- apiGroup: rbac.authorization.k8s.io
  kind: Group
  name: system:unauthenticated
`, "get", "clusterrolebinding", "system:public-info-viewer")
	expectAligned(t, s, "NAME                        ROLE                                    AGE\n"+
		"cluster-admin               ClusterRole/cluster-admin               0s\n"+
		"system:basic-user           ClusterRole/system:basic-user           0s\n"+
		"system:discovery            ClusterRole/system:discovery            0s\n"+
		"system:public-info-viewer   ClusterRole/system:public-info-viewer   0s\n", "get", "clusterrolebindings")

	// The user-facing roles are there to bind, as on any cluster.
	expectOut(t, s, "rolebinding.rbac.authorization.k8s.io/jane-view created\n",
		"create", "rolebinding", "jane-view", "--clusterrole=view", "--user=jane")
	if got := jsonpath(t, s, "{.aggregationRule.clusterRoleSelectors[0].matchLabels}", "get", "clusterrole", "view"); got != `{"rbac.authorization.k8s.io/aggregate-to-view":"true"}` {
		t.Errorf("view's aggregationRule: %s", got)
	}
	if got := jsonpath(t, s, "{.rules[*].resources}", "get", "clusterrole", "edit"); !strings.Contains(got, `"deployments"`) || !strings.Contains(got, `"pods/log"`) {
		t.Errorf("edit lacks deployments or pods/log (view's, aggregated): %s", got)
	}
}
