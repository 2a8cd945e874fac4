package kubectl

import (
	"strings"
	"testing"
	"time"

	"github.com/miniapi/miniapi/test/e2e/harness"
)

// Sections 1, 2 and 4 of ../shared/reference/kinds-crd-ssa-1.37.md:
// ConfigMaps, Secrets and ServiceAccounts as kubectl 1.37 shows them.

const cmYAML = `apiVersion: v1
kind: ConfigMap
metadata:
  name: app-config
data:
  LOG_LEVEL: debug
  config.yaml: |
    port: 8080
binaryData:
  blob: aGVsbG8=
`

const cmImmutableYAML = `apiVersion: v1
kind: ConfigMap
metadata:
  name: frozen
data:
  k: v1
immutable: true
`

const secretYAML = `apiVersion: v1
kind: Secret
metadata:
  name: db-creds
stringData:
  username: admin
  password: s3cr3t
data:
  extra: ZXh0cmE=
`

const secretTLSYAML = `apiVersion: v1
kind: Secret
metadata:
  name: web-tls
type: kubernetes.io/tls
data:
  tls.crt: Q0VSVA==
  tls.key: S0VZ
`

const secretTLSBadYAML = `apiVersion: v1
kind: Secret
metadata:
  name: bad-tls
type: kubernetes.io/tls
data:
  tls.crt: Q0VSVA==
`

const configKeyMsg = "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')"

const subdomainMsg = `a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`

// expectMasked runs kubectl and compares its stdout with want, both with
// uids, timestamps and resourceVersions masked.
func expectMasked(t *testing.T, s *harness.Server, want string, args ...string) {
	t.Helper()
	got := ok(t, s, args...).Stdout
	if harness.Mask(got) != harness.Mask(want) {
		t.Errorf("kubectl %s:\n got:\n%s\nwant:\n%s", strings.Join(args, " "), got, want)
	}
}

func TestConfigMaps(t *testing.T) {
	t.Parallel()
	s := start(t)
	expectOut(t, s, "configmap/app-config created\n", "apply", "-f", manifest(t, "cm.yaml", cmYAML))
	expectOut(t, s, "configmap/frozen created\n", "create", "-f", manifest(t, "cm-imm.yaml", cmImmutableYAML))

	expectMasked(t, s, `apiVersion: v1
binaryData:
  blob: aGVsbG8=
data:
  LOG_LEVEL: debug
  config.yaml: |
    port: 8080
kind: ConfigMap
metadata:
  annotations:
    kubectl.kubernetes.io/last-applied-configuration: |
      {"apiVersion":"v1","binaryData":{"blob":"aGVsbG8="},"data":{"LOG_LEVEL":"debug","config.yaml":"port: 8080\n"},"kind":"ConfigMap","metadata":{"annotations":{},"name":"app-config","namespace":"default"}}
  creationTimestamp: "2026-12-01T08:43:25Z"
  name: app-config
  namespace: default
  resourceVersion: "222"
  uid: a8be54ba-b865-4947-b862-3e0a951f4240
`, "get", "configmap", "app-config", "-o", "yaml")
	expectMasked(t, s, `apiVersion: v1
data:
  k: v1
immutable: true
kind: ConfigMap
metadata:
  creationTimestamp: "2026-12-01T08:43:25Z"
  name: frozen
  namespace: default
  resourceVersion: "223"
  uid: be591203-b36e-4447-a87e-500365c23b2f
`, "get", "configmap", "frozen", "-o", "yaml")

	want := "NAME | DATA | AGE\napp-config | 3 | AGE\nfrozen | 1 | AGE\n"
	expectTable(t, s, want, "get", "configmaps")
	expectTable(t, s, want, "get", "cm", "-o", "wide")

	fails(t, s, "The ConfigMap \"frozen\" is invalid: data: Forbidden: field is immutable when `immutable` is set\n",
		"patch", "cm", "frozen", "-p", `{"data":{"k":"v2"}}`)
	fails(t, s, "The ConfigMap \"frozen\" is invalid: immutable: Forbidden: field is immutable when `immutable` is set\n",
		"patch", "cm", "frozen", "--type=merge", "-p", `{"immutable":false}`)
	fails(t, s, `error: failed to create configmap: ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": `+subdomainMsg+"\n",
		"create", "configmap", "Bad_Name", "--from-literal=a=1")
	expectOut(t, s, "configmap/lit created\n", "create", "configmap", "lit", "--from-literal=a=1", "--from-literal=b=2")
	expectOut(t, s, "1 2", "get", "cm", "lit", "-o", "jsonpath={.data.a} {.data.b}")
}

func TestSecrets(t *testing.T) {
	t.Parallel()
	s := start(t)
	expectOut(t, s, "secret/db-creds created\n", "create", "-f", manifest(t, "secret.yaml", secretYAML))
	// tls.crt holds no PEM data: stored, with kube-apiserver's warning.
	res := expectOut(t, s, "secret/web-tls created\n", "create", "-f", manifest(t, "secret-tls.yaml", secretTLSYAML))
	if res.Stderr != "Warning: tls: failed to find any PEM data in certificate input\n" {
		t.Errorf("create the TLS secret: %s", res)
	}

	expectMasked(t, s, `apiVersion: v1
data:
  extra: ZXh0cmE=
  password: czNjcjN0
  username: YWRtaW4=
kind: Secret
metadata:
  creationTimestamp: "2026-12-01T08:43:34Z"
  name: db-creds
  namespace: default
  resourceVersion: "226"
  uid: aedb4702-222a-457e-b876-09dccf0d2445
type: Opaque
`, "get", "secret", "db-creds", "-o", "yaml")
	expectMasked(t, s, `apiVersion: v1
data:
  tls.crt: Q0VSVA==
  tls.key: S0VZ
kind: Secret
metadata:
  creationTimestamp: "2026-12-01T08:43:34Z"
  name: web-tls
  namespace: default
  resourceVersion: "227"
  uid: a6189ad3-44a7-4b38-80d2-086a67b9b4a6
type: kubernetes.io/tls
`, "get", "secret", "web-tls", "-o", "yaml")
	expectMasked(t, s, `apiVersion: v1
data:
  a: Yg==
kind: Secret
metadata:
  creationTimestamp: "2026-12-01T08:43:34Z"
  name: gen
  namespace: default
  uid: 38280f96-7f29-413e-9d7b-68c14d74385a
type: Opaque
`, "create", "secret", "generic", "gen", "--from-literal=a=b", "-o", "yaml", "--dry-run=server")

	want := "NAME | TYPE | DATA | AGE\ndb-creds | Opaque | 3 | AGE\nweb-tls | kubernetes.io/tls | 2 | AGE\n"
	expectTable(t, s, want, "get", "secrets")
	expectTable(t, s, want, "get", "secret", "-o", "wide")
	expectTable(t, s, "NAME | TYPE | DATA | AGE\nweb-tls | kubernetes.io/tls | 2 | AGE\n", "get", "secrets", "--field-selector", "type=kubernetes.io/tls")
	expectOut(t, s, `Name:         db-creds
Namespace:    default
Labels:       <none>
Annotations:  <none>

Type:  Opaque

Data
====
extra:     5 bytes
password:  6 bytes
username:  5 bytes
`, "describe", "secret", "db-creds")

	fails(t, s, "The Secret \"bad-tls\" is invalid: data[tls.key]: Required value\n", "create", "-f", manifest(t, "bad.yaml", secretTLSBadYAML))
	fails(t, s, "The Secret \"db-creds\" is invalid: \n* type: Invalid value: \"kubernetes.io/tls\": field is immutable\n* data[tls.crt]: Required value\n* data[tls.key]: Required value\n",
		"patch", "secret", "db-creds", "--type=merge", "-p", `{"type":"kubernetes.io/tls"}`)
	fails(t, s, `The Secret "db-creds" is invalid: data[bad key]: Invalid value: "bad key": `+configKeyMsg+"\n",
		"patch", "secret", "db-creds", "--type=merge", "-p", `{"data":{"bad key":"eA=="}}`)

	expectOut(t, s, "secret/lit created\n", "create", "secret", "generic", "lit", "--from-literal=a=b")
	expectOut(t, s, "Yg== Opaque", "get", "secret", "lit", "-o", "jsonpath={.data.a} {.type}")
}

func TestServiceAccounts(t *testing.T) {
	t.Parallel()
	s := start(t)
	// The serviceaccount controller makes default; kubectl then sees it.
	eventually(t, 10*time.Second, func() string {
		if res := s.Run("kubectl", "", "get", "sa", "default", "-o", "name"); res.Stdout != "serviceaccount/default\n" {
			return "no default ServiceAccount: " + res.String()
		}
		return ""
	})
	expectOut(t, s, "namespace/sa-demo created\n", "create", "namespace", "sa-demo")
	eventually(t, 10*time.Second, func() string {
		res := s.Run("kubectl", "", "get", "sa", "-n", "sa-demo")
		if res.ExitCode != 0 || len(table(t, res.Stdout)) != 2 {
			return "no default ServiceAccount in sa-demo: " + res.String()
		}
		return ""
	})
	expectTable(t, s, "NAME | AGE\ndefault | AGE\n", "get", "sa", "-n", "sa-demo")

	expectOut(t, s, "serviceaccount/builder created\n", "create", "serviceaccount", "builder")
	expectMasked(t, s, `apiVersion: v1
kind: ServiceAccount
metadata:
  creationTimestamp: "2026-12-01T08:44:15Z"
  name: builder
  namespace: default
  resourceVersion: "276"
  uid: d40318b5-c82e-4801-bc5c-4d3372669b46
`, "get", "sa", "builder", "-o", "yaml")
	want := "NAME | AGE\nbuilder | AGE\ndefault | AGE\n"
	expectTable(t, s, want, "get", "serviceaccounts")
	expectTable(t, s, want, "get", "sa", "-o", "wide")
	fails(t, s, `error: failed to create serviceaccount: ServiceAccount "Bad" is invalid: metadata.name: Invalid value: "Bad": `+subdomainMsg+"\n",
		"create", "serviceaccount", "Bad")
	expectOut(t, s, "namespace \"sa-demo\" deleted\n", "delete", "ns", "sa-demo", "--wait=false")
}

// TestGetConfigKindsTogether: one kubectl get over three kinds prints one
// table per kind, names prefixed with the kind, as kubectl does against
// kube-apiserver.
func TestGetConfigKindsTogether(t *testing.T) {
	t.Parallel()
	s := start(t)
	expectOut(t, s, "configmap/app-config created\n", "create", "configmap", "app-config", "--from-literal=LOG_LEVEL=debug")
	expectOut(t, s, "secret/db-creds created\n", "create", "secret", "generic", "db-creds", "--from-literal=username=admin", "--from-literal=password=s3cr3t")
	eventually(t, 10*time.Second, func() string {
		if res := s.Run("kubectl", "", "get", "sa", "default", "-o", "name"); res.ExitCode != 0 {
			return "no default ServiceAccount: " + res.String()
		}
		return ""
	})
	out := ok(t, s, "get", "cm,secret,sa").Stdout
	parts := strings.Split(out, "\n\n")
	want := []string{
		"NAME | DATA | AGE\nconfigmap/app-config | 1 | AGE\n",
		"NAME | TYPE | DATA | AGE\nsecret/db-creds | Opaque | 2 | AGE\n",
		"NAME | AGE\nserviceaccount/default | AGE\n",
	}
	if len(parts) != len(want) {
		t.Fatalf("kubectl get cm,secret,sa printed %d tables:\n%s", len(parts), out)
	}
	for i, p := range parts {
		if got := join(table(t, p)); got != want[i] {
			t.Errorf("table %d:\n got:\n%s\nwant:\n%s", i, got, want[i])
		}
	}
	// Columns aligned as kubectl aligns them against kube-apiserver.
	if !strings.HasPrefix(out, "NAME                   DATA   AGE\nconfigmap/app-config   1      ") {
		t.Errorf("layout:\n%s", out)
	}
}
