package kubectl

import (
	"strings"
	"testing"
)

const appliedV1 = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: applied
spec:
  replicas: 1
  selector:
    matchLabels: {app: applied}
  template:
    metadata:
      labels: {app: applied}
    spec:
      containers:
      - name: c
        image: nginx
`

// TestManifests covers create -f and apply -f with kubectl's default
// --validate=strict, which downloads OpenAPI v3 and sends
// fieldValidation=Strict, plus server-side dry run and the errors.
func TestManifests(t *testing.T) {
	t.Parallel()
	s := start(t)
	v1 := manifest(t, "applied.yaml", appliedV1)
	v2 := manifest(t, "applied-v2.yaml", strings.Replace(strings.Replace(appliedV1, "replicas: 1", "replicas: 2", 1), "image: nginx", "image: nginx:1.27", 1))

	t.Run("create -f", func(t *testing.T) {
		created := manifest(t, "created.yaml", strings.Replace(appliedV1, "name: applied", "name: created", 1))
		expectOut(t, s, "deployment.apps/created created\n", "create", "-f", created)
		fails(t, s, "Error from server (AlreadyExists): error when creating \""+created+"\": deployments.apps \"created\" already exists\n", "create", "-f", created)
	})

	t.Run("apply -f then a changed manifest", func(t *testing.T) {
		expectOut(t, s, "deployment.apps/applied created\n", "apply", "-f", v1)
		expectOut(t, s, "deployment.apps/applied unchanged\n", "apply", "-f", v1)
		expectOut(t, s, "deployment.apps/applied configured\n", "apply", "-f", v2)
		expectOut(t, s, "2 nginx:1.27 2", "get", "deploy", "applied", "-o", "jsonpath={.spec.replicas} {.spec.template.spec.containers[0].image} {.metadata.generation}")
		last := jsonpath(t, s, `{.metadata.annotations.kubectl\.kubernetes\.io/last-applied-configuration}`, "get", "deploy", "applied")
		if !strings.Contains(last, `"image":"nginx:1.27"`) {
			t.Errorf("last-applied-configuration = %s", last)
		}
	})

	t.Run("create --dry-run=server", func(t *testing.T) {
		expectOut(t, s, "deployment.apps/dry created (server dry run)\n", "create", "deployment", "dry", "--image=nginx", "--dry-run=server")
		dry := manifest(t, "dry.yaml", strings.Replace(appliedV1, "name: applied", "name: dry2", 1))
		expectOut(t, s, "deployment.apps/dry2 created (server dry run)\n", "create", "-f", dry, "--dry-run=server")
		expectOut(t, s, "deployment.apps/dry2 created (server dry run)\n", "apply", "-f", dry, "--dry-run=server")
		fails(t, s, "Error from server (NotFound): deployments.apps \"dry\" not found\n", "get", "deploy", "dry")
		fails(t, s, "Error from server (NotFound): deployments.apps \"dry2\" not found\n", "get", "deploy", "dry2")
	})

	t.Run("create namespace", func(t *testing.T) {
		expectOut(t, s, "namespace/ns1 created\n", "create", "namespace", "ns1")
		rows := table(t, ok(t, s, "get", "ns").Stdout)
		if join(rows[:1]) != "NAME | STATUS | AGE\n" {
			t.Errorf("get ns header %v", rows[0])
		}
		found := map[string]bool{}
		for _, r := range rows[1:] {
			found[strings.Join(r, " ")] = true
		}
		for _, want := range []string{"default Active AGE", "ns1 Active AGE"} {
			if !found[want] {
				t.Errorf("get ns lacks %q:\n%s", want, join(rows))
			}
		}
		expectOut(t, s, "namespace/ns1\n", "get", "ns", "ns1", "-o", "name")
	})

	t.Run("unknown field", func(t *testing.T) {
		bad := manifest(t, "bad-unknown-field.yaml", `apiVersion: apps/v1
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
`)
		want := "Error from server (BadRequest): error when creating \"" + bad + "\": Deployment in version \"v1\" cannot be handled as a Deployment: strict decoding error: unknown field \"spec.template.spec.containers[0].imagePullPolicyy\"\n"
		fails(t, s, want, "apply", "-f", bad)
		fails(t, s, want, "create", "-f", bad)
		// With --validate=warn the server drops the field and kubectl
		// prints the server's Warning header.
		res := s.Run("kubectl", "", "create", "-f", bad, "--validate=warn")
		if res.ExitCode != 0 || res.Stdout != "deployment.apps/bad-unknown created\n" ||
			!strings.Contains(res.Stderr, `Warning: unknown field "spec.template.spec.containers[0].imagePullPolicyy"`) {
			t.Errorf("create --validate=warn: %s", res)
		}
	})

	t.Run("List validated on the client", func(t *testing.T) {
		// kubectl cannot send fieldValidation for a v1 List, so it checks
		// each item against the OpenAPI v2 schema itself.
		good := manifest(t, "list.yaml", `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Namespace
  metadata: {name: team}
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: full, namespace: team}
  spec:
    replicas: 1
    selector: {matchLabels: {app: full}}
    strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 1, maxUnavailable: "25%"}}
    template:
      metadata: {labels: {app: full}}
      spec:
        containers:
        - name: c
          image: nginx
          ports: [{containerPort: 80}]
          env: [{name: A, valueFrom: {fieldRef: {fieldPath: metadata.name}}}]
          resources: {limits: {cpu: 100m, memory: 64Mi}, requests: {cpu: 0.05}}
          readinessProbe: {httpGet: {path: /, port: 80}}
`)
		expectOut(t, s, "namespace/team created\ndeployment.apps/full created\n", "apply", "-f", good)
		bad := manifest(t, "bad-list.yaml", `apiVersion: v1
kind: List
items:
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: bad}
  spec:
    replicas: "two"
    selector: {matchLabels: {app: bad}}
    template:
      metadata: {labels: {app: bad}}
      spec:
        containers:
        - name: c
          image: nginx
          imagePullPolicyy: Always
`)
		fails(t, s, "error: error validating \""+bad+"\": error validating data: [ValidationError(Deployment.spec.replicas): invalid type for io.k8s.api.apps.v1.DeploymentSpec.replicas: got \"string\", expected \"integer\", ValidationError(Deployment.spec.template.spec.containers[0]): unknown field \"imagePullPolicyy\" in io.k8s.api.core.v1.Container]; if you choose to ignore these errors, turn validation off with --validate=false\n",
			"apply", "-f", bad)
	})

	t.Run("unknown kind", func(t *testing.T) {
		// kubectl looks an unknown kind up among the CRDs before it gives
		// up; miniapi answers that list empty, as kube-apiserver does.
		bad := manifest(t, "bad-kind.yaml", "apiVersion: apps/v1\nkind: Deploymnt\nmetadata:\n  name: bad-kind\n")
		fails(t, s, "error: resource mapping not found for name: \"bad-kind\" namespace: \"\" from \""+bad+"\": no matches for kind \"Deploymnt\" in version \"apps/v1\"\nensure CRDs are installed first\n", "apply", "-f", bad)
	})

	t.Run("missing name", func(t *testing.T) {
		noname := manifest(t, "bad-noname.yaml", `apiVersion: apps/v1
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
`)
		// Every cause in one answer, the missing name first, as kube-apiserver.
		fails(t, s, "The Deployment \"\" is invalid: \n* metadata.name: Required value: name or generateName is required\n* spec.template.metadata.labels: Invalid value: {\"app\":\"other\"}: `selector` does not match template `labels`\n",
			"create", "-f", noname)
	})

	t.Run("invalid", func(t *testing.T) {
		invalid := manifest(t, "bad-selector.yaml", `apiVersion: apps/v1
kind: Deployment
metadata:
  name: bad-selector
spec:
  replicas: -1
  selector:
    matchLabels: {app: bad}
  template:
    metadata:
      labels: {app: other}
    spec:
      containers:
      - name: c
        image: nginx
`)
		fails(t, s, "The Deployment \"bad-selector\" is invalid: \n* spec.replicas: Invalid value: -1: must be greater than or equal to 0\n* spec.template.metadata.labels: Invalid value: {\"app\":\"other\"}: `selector` does not match template `labels`\n",
			"create", "-f", invalid)
	})
}
