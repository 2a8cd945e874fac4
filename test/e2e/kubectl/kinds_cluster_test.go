package kubectl

import (
	"regexp"
	"strings"
	"testing"

	"github.com/miniapi/miniapi/test/e2e/harness"
)

// Sections 12 (RBAC), 13 (Ingress), 14 (NetworkPolicy) and 18
// (PriorityClass) of ../shared/reference/kinds-crd-ssa-1.37.md, plus
// IngressClasses and StorageClasses, which it does not record: kube's
// columns and messages for those come from its source.

// withoutLastApplied drops the last-applied annotation as the reference's
// `grep -v -e last-applied -e '^      {'` did.
func withoutLastApplied(s string) string {
	var keep []string
	for _, l := range strings.SplitAfter(s, "\n") {
		if strings.Contains(l, "last-applied") || strings.HasPrefix(l, "      {") {
			continue
		}
		keep = append(keep, l)
	}
	return strings.Join(keep, "")
}

// expectYAML compares `get -o yaml` without the last-applied annotation,
// masked, with the reference's.
func expectYAML(t *testing.T, s *harness.Server, want string, args ...string) {
	t.Helper()
	got := withoutLastApplied(ok(t, s, append(args, "-o", "yaml")...).Stdout)
	if harness.Mask(got) != harness.Mask(want) {
		t.Errorf("kubectl %s -o yaml:\n got:\n%s\nwant:\n%s", strings.Join(args, " "), got, want)
	}
}

// shortAge matches an AGE cell under 100s with the padding after it.
var shortAge = regexp.MustCompile(`\b\d{1,2}s( +|\n)`)

// expectAligned compares kubectl's output byte for byte, AGE cells under
// 100 s (which keep the column's width) replaced by the reference's "0s".
func expectAligned(t *testing.T, s *harness.Server, want string, args ...string) {
	t.Helper()
	got := ok(t, s, args...).Stdout
	norm := shortAge.ReplaceAllStringFunc(got, func(m string) string {
		tail := strings.TrimLeft(m, "0123456789")[1:]
		return "0s" + strings.Repeat(" ", len(m)-2-len(tail)) + tail
	})
	if norm != want {
		t.Errorf("kubectl %s:\n got:\n%s\nwant:\n%s", strings.Join(args, " "), got, want)
	}
}

// pipe runs kubectl with stdin and checks it exited 1 with exactly this
// stderr (the reference's `... | kubectl create -f -`).
func pipeFails(t *testing.T, s *harness.Server, stdin, wantStderr string, args ...string) {
	t.Helper()
	res := s.Run("kubectl", stdin, args...)
	if res.ExitCode != 1 || res.Stderr != wantStderr || res.Stdout != "" {
		t.Errorf("kubectl %s:\n got %s\nwant exit 1, stderr %q", strings.Join(args, " "), res, wantStderr)
	}
}

// replaced returns s with old replaced once, failing if old is missing.
func replaced(t *testing.T, s, old, new string) string {
	t.Helper()
	if !strings.Contains(s, old) {
		t.Fatalf("%q not in %s", old, s)
	}
	return strings.Replace(s, old, new, 1)
}

const rbacYAML = `apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: pod-reader
rules:
- apiGroups: [""]
  resources: ["pods"]
  verbs: ["get", "list", "watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: read-pods
subjects:
- kind: User
  name: jane
- kind: ServiceAccount
  name: builder
roleRef:
  kind: Role
  name: pod-reader
  apiGroup: rbac.authorization.k8s.io
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: secret-reader
rules:
- apiGroups: [""]
  resources: ["secrets"]
  verbs: ["get", "list"]
- nonResourceURLs: ["/healthz"]
  verbs: ["get"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: read-secrets-global
subjects:
- kind: Group
  name: managers
  apiGroup: rbac.authorization.k8s.io
roleRef:
  kind: ClusterRole
  name: secret-reader
  apiGroup: rbac.authorization.k8s.io
`

func TestClusterKindsRBAC(t *testing.T) {
	t.Parallel()
	s := start(t)
	expectOut(t, s, `role.rbac.authorization.k8s.io/pod-reader created
rolebinding.rbac.authorization.k8s.io/read-pods created
clusterrole.rbac.authorization.k8s.io/secret-reader created
clusterrolebinding.rbac.authorization.k8s.io/read-secrets-global created
`, "apply", "-f", manifest(t, "rbac.yaml", rbacYAML))

	expectYAML(t, s, `apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  annotations:
  creationTimestamp: "2026-12-01T08:46:51Z"
  name: pod-reader
  namespace: default
  resourceVersion: "536"
  uid: 6d3dab0f-f0b6-421f-b387-2df585409608
rules:
- apiGroups:
  - ""
  resources:
  - pods
  verbs:
  - get
  - list
  - watch
`, "get", "role/pod-reader")
	expectYAML(t, s, `apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  annotations:
  creationTimestamp: "2026-12-01T08:46:51Z"
  name: read-pods
  namespace: default
  resourceVersion: "537"
  uid: d0df9d3b-baf8-4c87-be10-f1e35a2cf351
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: pod-reader
subjects:
- apiGroup: rbac.authorization.k8s.io
  kind: User
  name: jane
- kind: ServiceAccount
  name: builder
`, "get", "rolebinding/read-pods")
	expectYAML(t, s, `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  annotations:
  creationTimestamp: "2026-12-01T08:46:51Z"
  name: secret-reader
  resourceVersion: "538"
  uid: 467983f0-8529-4ad5-a319-7d1797483098
rules:
- apiGroups:
  - ""
  resources:
  - secrets
  verbs:
  - get
  - list
- nonResourceURLs:
  - /healthz
  verbs:
  - get
`, "get", "clusterrole/secret-reader")
	expectYAML(t, s, `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  annotations:
  creationTimestamp: "2026-12-01T08:46:51Z"
  name: read-secrets-global
  resourceVersion: "539"
  uid: dda79edc-a5bb-4a28-a8d0-3d992a981ae0
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: secret-reader
subjects:
- apiGroup: rbac.authorization.k8s.io
  kind: Group
  name: managers
`, "get", "clusterrolebinding/read-secrets-global")

	// The user subject's defaulted apiGroup is not in the manifest, and
	// subjects is an atomic list: a re-apply patches it again, on kube too.
	expectOut(t, s, `role.rbac.authorization.k8s.io/pod-reader unchanged
rolebinding.rbac.authorization.k8s.io/read-pods configured
clusterrole.rbac.authorization.k8s.io/secret-reader unchanged
clusterrolebinding.rbac.authorization.k8s.io/read-secrets-global unchanged
`, "apply", "-f", manifest(t, "rbac.yaml", rbacYAML))

	roles := "NAME         CREATED AT\npod-reader   2026-12-01T08:46:51Z\n"
	expectMasked(t, s, roles, "get", "roles")
	expectMasked(t, s, roles, "get", "role", "-o", "wide")
	expectAligned(t, s, "NAME        ROLE              AGE\nread-pods   Role/pod-reader   0s\n", "get", "rolebindings")
	expectAligned(t, s, "NAME        ROLE              AGE   USERS   GROUPS   SERVICEACCOUNTS\nread-pods   Role/pod-reader   0s    jane             /builder\n",
		"get", "rolebinding", "-o", "wide")
	expectMasked(t, s, "NAME            CREATED AT\nsecret-reader   2026-12-01T08:46:51Z\n", "get", "clusterrole", "secret-reader", "-o", "wide")
	expectAligned(t, s, "NAME                  ROLE                        AGE   USERS   GROUPS     SERVICEACCOUNTS\nread-secrets-global   ClusterRole/secret-reader   0s            managers   \n",
		"get", "clusterrolebinding", "read-secrets-global", "-o", "wide")
	expectOut(t, s, `Name:         pod-reader
Labels:       <none>
Annotations:  <none>
PolicyRule:
  Resources  Non-Resource URLs  Resource Names  Verbs
  ---------  -----------------  --------------  -----
  pods       []                 []              [get list watch]
`, "describe", "role", "pod-reader")

	// Validation, as the reference's errors.
	fails(t, s, `The RoleBinding "read-pods" is invalid: roleRef: Invalid value: {"APIGroup":"rbac.authorization.k8s.io","Kind":"ClusterRole","Name":"view"}: field is immutable`+"\n",
		"patch", "rolebinding", "read-pods", "--type=merge", "-p", `{"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"view"}}`)
	role := ok(t, s, "create", "role", "bad", "--verb=get", "--resource=pods", "--dry-run=client", "-o", "yaml").Stdout
	role = replaced(t, replaced(t, role, "- get", ""), "verbs:", "verbs: []")
	pipeFails(t, s, role, "The Role \"bad\" is invalid: rules[0].verbs: Required value\n", "create", "-f", "-")
	binding := ok(t, s, "create", "rolebinding", "bad2", "--role=pod-reader", "--user=jane", "--dry-run=client", "-o", "json").Stdout
	binding = replaced(t, binding, `"kind": "User"`, `"kind": "Robot"`)
	pipeFails(t, s, binding, `The RoleBinding "bad2" is invalid: subjects[0].kind: Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"`+"\n", "create", "-f", "-")

	// The kubectl create commands, and delete.
	expectOut(t, s, "clusterrole.rbac.authorization.k8s.io/pod-lister created\n", "create", "clusterrole", "pod-lister", "--verb=list", "--resource=pods")
	expectOut(t, s, "clusterrolebinding.rbac.authorization.k8s.io/list-pods created\n",
		"create", "clusterrolebinding", "list-pods", "--clusterrole=pod-lister", "--serviceaccount=default:builder", "--group=devs")
	expectAligned(t, s, "NAME        ROLE                     AGE   USERS   GROUPS   SERVICEACCOUNTS\nlist-pods   ClusterRole/pod-lister   0s            devs     default/builder\n",
		"get", "clusterrolebinding", "list-pods", "-o", "wide")
	expectOut(t, s, "role.rbac.authorization.k8s.io/svc-reader created\n", "create", "role", "svc-reader", "--verb=get", "--resource=services")
	expectOut(t, s, "rolebinding.rbac.authorization.k8s.io/read-svc created\n", "create", "rolebinding", "read-svc", "--role=svc-reader", "--user=bob")
	fails(t, s, `The ClusterRoleBinding "bad3" is invalid: subjects[0].namespace: Required value`+"\n",
		"create", "-f", manifest(t, "bad3.yaml", "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata: {name: bad3}\n"+
			"subjects: [{kind: ServiceAccount, name: builder}]\nroleRef: {kind: ClusterRole, name: pod-lister}\n"))
	expectOut(t, s, "role.rbac.authorization.k8s.io \"pod-reader\" deleted from default namespace\nrolebinding.rbac.authorization.k8s.io \"read-pods\" deleted from default namespace\nclusterrole.rbac.authorization.k8s.io \"secret-reader\" deleted\nclusterrolebinding.rbac.authorization.k8s.io \"read-secrets-global\" deleted\n",
		"delete", "-f", manifest(t, "rbac.yaml", rbacYAML))
	expectMasked(t, s, "NAME         CREATED AT\nsvc-reader   2026-12-01T08:46:51Z\n", "get", "roles")
}

const ingressYAML = `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: web
spec:
  rules:
  - host: web.example.com
    http:
      paths:
      - path: /
        pathType: Prefix
        backend:
          service:
            name: web
            port:
              number: 80
  tls:
  - hosts: [web.example.com]
    secretName: web-tls
`

const netpolYAML = `apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: allow-web
spec:
  podSelector:
    matchLabels:
      app: web
  ingress:
  - from:
    - podSelector:
        matchLabels:
          role: frontend
    ports:
    - port: 8080
`

func TestClusterKindsNetworking(t *testing.T) {
	t.Parallel()
	s := start(t)
	expectOut(t, s, "ingress.networking.k8s.io/web created\n", "apply", "-f", manifest(t, "ing.yaml", ingressYAML))
	expectYAML(t, s, `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  annotations:
  creationTimestamp: "2026-12-01T08:47:11Z"
  generation: 1
  name: web
  namespace: default
  resourceVersion: "545"
  uid: cba230a9-bdc5-4196-a5fb-cfae7febbaf5
spec:
  rules:
  - host: web.example.com
    http:
      paths:
      - backend:
          service:
            name: web
            port:
              number: 80
        path: /
        pathType: Prefix
  tls:
  - hosts:
    - web.example.com
    secretName: web-tls
status:
  loadBalancer: {}
`, "get", "ingress", "web")
	expectOut(t, s, "ingress.networking.k8s.io/web unchanged\n", "apply", "-f", manifest(t, "ing.yaml", ingressYAML))
	ingTable := "NAME   CLASS    HOSTS             ADDRESS   PORTS     AGE\nweb    <none>   web.example.com             80, 443   0s\n"
	expectAligned(t, s, ingTable, "get", "ingress")
	expectAligned(t, s, ingTable, "get", "ing", "-o", "wide")

	ingress := ok(t, s, "create", "ingress", "bad", "--rule=web.example.com/=web:80", "--dry-run=client", "-o", "json").Stdout
	pipeFails(t, s, replaced(t, ingress, `"pathType": "Exact"`, `"pathType": "Sometimes"`),
		`The Ingress "bad" is invalid: spec.rules[0].http.paths[0].pathType: Unsupported value: "Sometimes": supported values: "Exact", "ImplementationSpecific", "Prefix"`+"\n", "create", "-f", "-")
	pipeFails(t, s, replaced(t, ingress, `"path": "/"`, `"path": "no-slash"`),
		`The Ingress "bad" is invalid: spec.rules[0].http.paths[0].path: Invalid value: "no-slash": must be an absolute path`+"\n", "create", "-f", "-")
	fails(t, s, `error: failed to create ingress: Ingress.networking.k8s.io "bad" is invalid: spec.rules[0].host: Invalid value: "Web_Bad": `+subdomainMsg+"\n",
		"create", "ingress", "bad", "--rule=Web_Bad/=web:80")
	noPort := regexp.MustCompile(`,\s*"port": \{\s*"number": 80\s*\}`).ReplaceAllString(ingress, "")
	pipeFails(t, s, noPort, `The Ingress "bad" is invalid: spec.rules[0].http.paths[0].backend: Required value: port name or number is required`+"\n", "create", "-f", "-")

	// A spec change moves generation; IngressClasses.
	ok(t, s, "patch", "ingress", "web", "--type=merge", "-p", `{"spec":{"ingressClassName":"nginx"}}`)
	if got := jsonpath(t, s, "{.metadata.generation}", "get", "ingress", "web"); got != "2" {
		t.Errorf("generation after a spec change = %s", got)
	}
	expectOut(t, s, "ingressclass.networking.k8s.io/nginx created\n", "apply", "-f", manifest(t, "ic.yaml", `apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata:
  name: nginx
spec:
  controller: k8s.io/ingress-nginx
  parameters:
    apiGroup: k8s.example.com
    kind: IngressParameters
    name: external-lb
`))
	expectAligned(t, s, "NAME    CONTROLLER             PARAMETERS                                      AGE\nnginx   k8s.io/ingress-nginx   IngressParameters.k8s.example.com/external-lb   0s\n", "get", "ingressclasses")
	if got := jsonpath(t, s, "{.spec.parameters.scope} {.metadata.generation}", "get", "ingressclass", "nginx"); got != "Cluster 1" {
		t.Errorf("scope and generation = %q", got)
	}
	fails(t, s, `The IngressClass "nginx" is invalid: spec.controller: Invalid value: "example.com/other": field is immutable`+"\n",
		"patch", "ingressclass", "nginx", "--type=merge", "-p", `{"spec":{"controller":"example.com/other"}}`)

	expectOut(t, s, "networkpolicy.networking.k8s.io/allow-web created\n", "apply", "-f", manifest(t, "netpol.yaml", netpolYAML))
	expectYAML(t, s, `apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  annotations:
  creationTimestamp: "2026-12-01T08:47:11Z"
  generation: 1
  name: allow-web
  namespace: default
  resourceVersion: "546"
  uid: 256cfdd7-efa7-4c72-970e-92cc6e0d59ee
spec:
  ingress:
  - from:
    - podSelector:
        matchLabels:
          role: frontend
    ports:
    - port: 8080
      protocol: TCP
  podSelector:
    matchLabels:
      app: web
  policyTypes:
  - Ingress
`, "get", "networkpolicy", "allow-web")
	npTable := "NAME        POD-SELECTOR   AGE\nallow-web   app=web        0s\n"
	expectAligned(t, s, npTable, "get", "networkpolicies")
	expectAligned(t, s, npTable, "get", "netpol", "-o", "wide")
	fails(t, s, `The NetworkPolicy "allow-web" is invalid: spec.policyTypes[0]: Unsupported value: "Sideways": supported values: "Ingress", "Egress"`+"\n",
		"patch", "netpol", "allow-web", "--type=merge", "-p", `{"spec":{"policyTypes":["Sideways"]}}`)
	fails(t, s, `The NetworkPolicy "allow-web" is invalid: spec.ingress[0].ports[0].port: Invalid value: 70000: must be between 1 and 65535, inclusive`+"\n",
		"patch", "netpol", "allow-web", "--type=json", "-p", `[{"op":"replace","path":"/spec/ingress/0/ports/0/port","value":70000}]`)

	expectOut(t, s, "ingress.networking.k8s.io \"web\" deleted from default namespace\n", "delete", "ing", "web")
	expectOut(t, s, "networkpolicy.networking.k8s.io \"allow-web\" deleted from default namespace\n", "delete", "netpol", "allow-web")
	expectOut(t, s, "ingressclass.networking.k8s.io \"nginx\" deleted\n", "delete", "ingressclass", "nginx")
	res := ok(t, s, "get", "ingresses,networkpolicies")
	if res.Stdout != "" || res.Stderr != "No resources found in default namespace.\n" {
		t.Errorf("after delete: %s", res)
	}
}

func TestClusterKindsPriorityClasses(t *testing.T) {
	t.Parallel()
	s := start(t)
	expectOut(t, s, "priorityclass.scheduling.k8s.io/high created\n", "apply", "-f", manifest(t, "pc.yaml", `apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata:
  name: high
value: 100000
description: important pods
`))
	expectYAML(t, s, `apiVersion: scheduling.k8s.io/v1
description: important pods
kind: PriorityClass
metadata:
  annotations:
  creationTimestamp: "2026-12-01T08:47:31Z"
  generation: 1
  name: high
  resourceVersion: "555"
  uid: 58a8fd9d-1c19-4b7c-84bf-63a4a2f98a92
preemptionPolicy: PreemptLowerPriority
value: 100000
`, "get", "priorityclass", "high")
	// The system classes were created at start, so their AGE differs from
	// the reference's minutes: compare cells.
	pcs := "NAME | VALUE | GLOBAL-DEFAULT | AGE | PREEMPTIONPOLICY\n" +
		"high | 100000 | false | AGE | PreemptLowerPriority\n" +
		"system-cluster-critical | 2000000000 | false | AGE | PreemptLowerPriority\n" +
		"system-node-critical | 2000001000 | false | AGE | PreemptLowerPriority\n"
	expectTable(t, s, pcs, "get", "priorityclasses")
	expectTable(t, s, pcs, "get", "pc", "-o", "wide")
	if got := jsonpath(t, s, "{.description}", "get", "pc", "system-node-critical"); got != "Used for system critical pods that must not be moved from their current node." {
		t.Errorf("system-node-critical description %q", got)
	}

	fails(t, s, "The PriorityClass \"high\" is invalid: value: Forbidden: may not be changed in an update.\n",
		"patch", "pc", "high", "--type=merge", "-p", `{"value":5}`)
	fails(t, s, `error: failed to create priorityclass: PriorityClass.scheduling.k8s.io "toohigh" is invalid: value: Forbidden: maximum allowed value of a user defined priority is 1000000000`+"\n",
		"create", "priorityclass", "toohigh", "--value=2000000000")
	fails(t, s, `error: failed to create priorityclass: PriorityClass.scheduling.k8s.io "system-bad" is invalid: metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: system-bad is not a known system priority class`+"\n",
		"create", "priorityclass", "system-bad", "--value=10")
	expectOut(t, s, "priorityclass.scheduling.k8s.io/def2 created\n", "create", "priorityclass", "def2", "--value=10", "--global-default")
	fails(t, s, `error: failed to create priorityclass: priorityclasses.scheduling.k8s.io "def3" is forbidden: PriorityClass def2 is already marked as default. Only one default can exist`+"\n",
		"create", "priorityclass", "def3", "--value=20", "--global-default")
	fails(t, s, `Error from server (Forbidden): priorityclasses.scheduling.k8s.io "high" is forbidden: PriorityClass def2 is already marked as default. Only one default can exist`+"\n",
		"patch", "pc", "high", "--type=merge", "-p", `{"globalDefault":true}`)
	expectOut(t, s, "priorityclass.scheduling.k8s.io \"def2\" deleted\n", "delete", "pc", "def2")

	// Pods get their class's priority (kube's Priority admission).
	var prio []string
	for _, l := range strings.Split(ok(t, s, "run", "prio", "--image=nginx", "--dry-run=server", "-o", "yaml", "--overrides", `{"spec":{"priorityClassName":"high"}}`).Stdout, "\n") {
		if strings.Contains(l, "priority") || strings.Contains(l, "preemption") {
			prio = append(prio, l)
		}
	}
	if got := strings.Join(prio, "\n"); got != "  preemptionPolicy: PreemptLowerPriority\n  priority: 100000\n  priorityClassName: high" {
		t.Errorf("pod with class high:\n%s", got)
	}
	fails(t, s, `Error from server (Forbidden): pods "nope" is forbidden: no PriorityClass with name nope was found`+"\n",
		"run", "nope", "--image=nginx", "--overrides", `{"spec":{"priorityClassName":"nope"}}`)
}

func TestClusterKindsStorageClasses(t *testing.T) {
	t.Parallel()
	s := start(t)
	expectOut(t, s, "storageclass.storage.k8s.io/standard created\nstorageclass.storage.k8s.io/fast created\n", "apply", "-f", manifest(t, "sc.yaml", `apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: standard
  annotations:
    storageclass.kubernetes.io/is-default-class: "true"
provisioner: rancher.io/local-path
volumeBindingMode: WaitForFirstConsumer
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: fast
provisioner: example.com/fast
parameters:
  type: ssd
reclaimPolicy: Retain
allowVolumeExpansion: true
`))
	scTable := "NAME                 PROVISIONER             RECLAIMPOLICY   VOLUMEBINDINGMODE      ALLOWVOLUMEEXPANSION   AGE\n" +
		"fast                 example.com/fast        Retain          Immediate              true                   0s\n" +
		"standard (default)   rancher.io/local-path   Delete          WaitForFirstConsumer   false                  0s\n"
	expectAligned(t, s, scTable, "get", "storageclasses")
	expectAligned(t, s, scTable, "get", "sc", "-o", "wide")
	fails(t, s, "The StorageClass \"fast\" is invalid: \n* parameters: Forbidden: updates to parameters are forbidden.\n* reclaimPolicy: Forbidden: updates to reclaimPolicy are forbidden.\n",
		"patch", "sc", "fast", "--type=merge", "-p", `{"parameters":{"type":"hdd"},"reclaimPolicy":"Delete"}`)
	fails(t, s, "The StorageClass \"bad\" is invalid: provisioner: Invalid value: \"not a provisioner\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')\n",
		"create", "-f", manifest(t, "bad.yaml", "apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata:\n  name: bad\nprovisioner: not a provisioner\n"))
	expectOut(t, s, "storageclass.storage.k8s.io \"fast\" deleted\n", "delete", "sc", "fast")
}

// TestClusterKindsGetAll: the new kinds are in no category, so `get all`
// lists what it did before, and still works.
func TestClusterKindsGetAll(t *testing.T) {
	t.Parallel()
	s := start(t)
	ok(t, s, "apply", "-f", manifest(t, "rbac.yaml", rbacYAML))
	res := ok(t, s, "get", "all")
	if !strings.Contains(res.Stdout, "service/kubernetes") || strings.Contains(res.Stdout, "rbac") {
		t.Errorf("get all: %s", res)
	}
	// Discovery as the reference's APIResourceLists say.
	expectOut(t, s, `NAME                  SHORTNAMES   APIVERSION                     NAMESPACED   KIND
clusterrolebindings                rbac.authorization.k8s.io/v1   false        ClusterRoleBinding
clusterroles                       rbac.authorization.k8s.io/v1   false        ClusterRole
rolebindings                       rbac.authorization.k8s.io/v1   true         RoleBinding
roles                              rbac.authorization.k8s.io/v1   true         Role
`, "api-resources", "--api-group=rbac.authorization.k8s.io")
	expectOut(t, s, `NAME              SHORTNAMES   APIVERSION             NAMESPACED   KIND
priorityclasses   pc           scheduling.k8s.io/v1   false        PriorityClass
`, "api-resources", "--api-group=scheduling.k8s.io")
	// A deleted namespace takes its RBAC and networking objects with it
	// (kubectl delete waits until the namespace is gone).
	ok(t, s, "create", "namespace", "team")
	ok(t, s, "-n", "team", "create", "role", "r", "--verb=get", "--resource=pods")
	ok(t, s, "-n", "team", "create", "rolebinding", "rb", "--role=r", "--user=jane")
	ok(t, s, "-n", "team", "apply", "-f", manifest(t, "ing.yaml", ingressYAML))
	ok(t, s, "-n", "team", "apply", "-f", manifest(t, "netpol.yaml", netpolYAML))
	expectOut(t, s, "namespace \"team\" deleted\n", "delete", "namespace", "team")
	if res := ok(t, s, "-n", "team", "get", "roles,rolebindings,ingresses,networkpolicies"); res.Stdout != "" || res.Stderr != "No resources found in team namespace.\n" {
		t.Errorf("after the namespace's delete: %s", res)
	}

	// kubectl's describers work on the new kinds.
	ok(t, s, "describe", "rolebinding", "read-pods")
	ok(t, s, "describe", "clusterrolebinding", "read-secrets-global")
	ok(t, s, "describe", "priorityclass", "system-node-critical")
}
