package kubectl

import (
	"net/netip"
	"regexp"
	"strings"
	"testing"

	"github.com/miniapi/miniapi/test/e2e/harness"
)

// servicesManifest is the reference's svc.yaml (section 3 of
// ../shared/reference/kinds-crd-ssa-1.37.md) after a Deployment, as a chart
// mixes them.
const servicesManifest = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: frontend
spec:
  replicas: 1
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: c
        image: nginx
---
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  selector:
    app: web
  ports:
  - port: 80
    targetPort: 8080
---
apiVersion: v1
kind: Service
metadata:
  name: web-notarget
spec:
  selector:
    app: web
  ports:
  - name: http
    port: 80
  - name: metrics
    port: 9090
    protocol: UDP
---
apiVersion: v1
kind: Service
metadata:
  name: web-headless
spec:
  clusterIP: None
  selector:
    app: web
  ports:
  - port: 80
---
apiVersion: v1
kind: Service
metadata:
  name: web-np
spec:
  type: NodePort
  selector:
    app: web
  ports:
  - port: 80
    targetPort: http
---
apiVersion: v1
kind: Service
metadata:
  name: web-lb
spec:
  type: LoadBalancer
  selector:
    app: web
  ports:
  - port: 443
---
apiVersion: v1
kind: Service
metadata:
  name: ext
spec:
  type: ExternalName
  externalName: db.example.com
`

// The reference's `kubectl get svc -o wide` (section 3), AGE masked, and
// the randomly allocated ClusterIPs and NodePorts written as IP and NP.
const referenceServicesWide = `NAME | TYPE | CLUSTER-IP | EXTERNAL-IP | PORT(S) | AGE | SELECTOR
ext | ExternalName | <none> | db.example.com | <none> | AGE | <none>
kubernetes | ClusterIP | 10.96.0.1 | <none> | 443/TCP | AGE | <none>
web | ClusterIP | IP | <none> | 80/TCP | AGE | app=web
web-headless | ClusterIP | None | <none> | 80/TCP | AGE | app=web
web-lb | LoadBalancer | IP | <pending> | 443:NP/TCP | AGE | app=web
web-notarget | ClusterIP | IP | <none> | 80/TCP,9090/UDP | AGE | app=web
web-np | NodePort | IP | <none> | 80:NP/TCP | AGE | app=web
`

// serviceRange is the reference peer's --service-cluster-ip-range.
var serviceRange = netip.MustParsePrefix("10.96.0.0/24")

var nodePortCell = regexp.MustCompile(`:(3[0-2][0-9]{3})/`)

// maskServices replaces allocated ClusterIPs (all but 10.96.0.1, which is
// the kubernetes Service's by rule) and NodePorts, after checking they
// come from the ranges.
func maskServices(t *testing.T, rows [][]string) [][]string {
	t.Helper()
	for _, row := range rows[1:] {
		if ip, err := netip.ParseAddr(row[2]); err == nil && row[2] != "10.96.0.1" {
			if !serviceRange.Contains(ip) {
				t.Errorf("ClusterIP %s is outside %s", ip, serviceRange)
			}
			row[2] = "IP"
		}
		row[4] = nodePortCell.ReplaceAllString(row[4], ":NP/")
	}
	return rows
}

func startForServices(t *testing.T) *harness.Server {
	t.Helper()
	return harness.Start(t, "--pod-ready-delay=100ms", "--service-cluster-ip-range=10.96.0.0/24")
}

// TestServices follows section 3 of the reference: apply a manifest that
// mixes a Deployment and Services, list them, the errors kube-apiserver
// gives, type changes, expose and the kubernetes Service.
func TestServices(t *testing.T) {
	t.Parallel()
	s := startForServices(t)
	path := manifest(t, "svc.yaml", servicesManifest)
	expectOut(t, s, "deployment.apps/frontend created\nservice/web created\nservice/web-notarget created\nservice/web-headless created\nservice/web-np created\nservice/web-lb created\nservice/ext created\n",
		"apply", "-f", path)
	expectOut(t, s, "deployment.apps/frontend unchanged\nservice/web unchanged\nservice/web-notarget unchanged\nservice/web-headless unchanged\nservice/web-np unchanged\nservice/web-lb unchanged\nservice/ext unchanged\n",
		"apply", "-f", path)

	t.Run("get svc", func(t *testing.T) {
		wide := join(maskServices(t, table(t, ok(t, s, "get", "svc", "-o", "wide").Stdout)))
		if wide != referenceServicesWide {
			t.Errorf("get svc -o wide:\n got:\n%s\nwant:\n%s", wide, referenceServicesWide)
		}
		var narrow []string
		for _, line := range strings.Split(strings.TrimSuffix(referenceServicesWide, "\n"), "\n") {
			narrow = append(narrow, line[:strings.LastIndex(line, " | ")])
		}
		want := strings.Join(narrow, "\n") + "\n"
		if got := join(maskServices(t, table(t, ok(t, s, "get", "services").Stdout))); got != want {
			t.Errorf("get services:\n got:\n%s\nwant:\n%s", got, want)
		}
		expectTable(t, s, "NAME | TYPE | CLUSTER-IP | EXTERNAL-IP | PORT(S) | AGE\nkubernetes | ClusterIP | 10.96.0.1 | <none> | 443/TCP | AGE\n",
			"get", "svc", "kubernetes")
		expectOut(t, s, "https 443 6443 TCP apiserver kubernetes", "get", "svc", "kubernetes", "-o",
			"jsonpath={.spec.ports[0].name} {.spec.ports[0].port} {.spec.ports[0].targetPort} {.spec.ports[0].protocol} {.metadata.labels.component} {.metadata.labels.provider}")
	})

	t.Run("api-resources", func(t *testing.T) {
		found := false
		for _, row := range table(t, ok(t, s, "api-resources", "-o", "wide").Stdout) {
			if strings.Join(row, " | ") == "services | svc | v1 | true | Service | create,delete,deletecollection,get,list,patch,update,watch | all" {
				found = true
			}
		}
		if !found {
			t.Error("api-resources -o wide lacks services as kube-apiserver lists them")
		}
	})

	t.Run("defaults", func(t *testing.T) {
		expectOut(t, s, `ClusterIP None Cluster SingleStack ["IPv4"] [{"port":80,"protocol":"TCP","targetPort":8080}]`, "get", "svc", "web", "-o",
			"jsonpath={.spec.type} {.spec.sessionAffinity} {.spec.internalTrafficPolicy} {.spec.ipFamilyPolicy} {.spec.ipFamilies} {.spec.ports}")
		expectOut(t, s, `[{"name":"http","port":80,"protocol":"TCP","targetPort":80},{"name":"metrics","port":9090,"protocol":"UDP","targetPort":9090}]`,
			"get", "svc", "web-notarget", "-o", "jsonpath={.spec.ports}")
		expectOut(t, s, "None None Cluster", "get", "svc", "web-headless", "-o", "jsonpath={.spec.clusterIP} {.spec.clusterIPs[0]} {.spec.externalTrafficPolicy}{.spec.internalTrafficPolicy}")
		expectOut(t, s, "Cluster true", "get", "svc", "web-lb", "-o", "jsonpath={.spec.externalTrafficPolicy} {.spec.allocateLoadBalancerNodePorts}")
		expectOut(t, s, `{"externalName":"db.example.com","sessionAffinity":"None","type":"ExternalName"}`, "get", "svc", "ext", "-o", "jsonpath={.spec}")
	})

	t.Run("validation errors", func(t *testing.T) {
		dup := manifest(t, "svc-dup.yaml", "apiVersion: v1\nkind: Service\nmetadata:\n  name: dup\nspec:\n  ports:\n  - port: 80\n  - port: 80\n")
		fails(t, s, "The Service \"dup\" is invalid: \n* spec.ports[0].name: Required value\n* spec.ports[1].name: Required value\n* spec.ports[1]: Duplicate value: {\"Name\":\"\",\"Protocol\":\"TCP\",\"AppProtocol\":null,\"Port\":80,\"TargetPort\":0,\"NodePort\":0}\n",
			"create", "-f", dup)
		fails(t, s, "The Service \"web\" is invalid: spec.clusterIPs[0]: Invalid value: [\"10.96.0.99\"]: may not change once set\n",
			"patch", "svc", "web", "--type=merge", "-p", `{"spec":{"clusterIP":"10.96.0.99","clusterIPs":["10.96.0.99"]}}`)
		fails(t, s, "The Service \"web\" is invalid: spec.externalName: Required value\n",
			"patch", "svc", "web", "--type=merge", "-p", `{"spec":{"type":"ExternalName"}}`)
		fails(t, s, "error: failed to create ClusterIP service: Service \"noports\" is invalid: spec.clusterIPs: Invalid value: [\"10.96.5.5\"]: failed to allocate IP 10.96.5.5: the provided IP (10.96.5.5) is not in the valid range. The range of valid IPs is 10.96.0.0/24\n",
			"create", "service", "clusterip", "noports", "--clusterip=10.96.5.5", "--tcp=80", "--dry-run=server")
		expectOut(t, s, "service/np2 created (server dry run)\n", "create", "service", "nodeport", "np2", "--tcp=80", "--node-port=20000", "--dry-run=server")
		fails(t, s, "The Service \"web-notarget\" is invalid: spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'\n",
			"patch", "svc", "web-notarget", "--type=json", "-p", `[{"op":"add","path":"/spec/ports/0/nodePort","value":30080}]`)
		fails(t, s, "error: failed to create NodePort service: Service \"np2\" is invalid: spec.ports[0].nodePort: Invalid value: 20000: provided port is not in the valid range. The range of valid ports is 30000-32767\n",
			"create", "service", "nodeport", "np2", "--tcp=80", "--node-port=20000")
		taken := jsonpath(t, s, "{.spec.ports[0].nodePort}", "get", "svc", "web-np")
		fails(t, s, "error: failed to create NodePort service: Service \"np3\" is invalid: spec.ports[0].nodePort: Invalid value: "+taken+": provided port is already allocated\n",
			"create", "service", "nodeport", "np3", "--tcp=80", "--node-port="+taken)
		fails(t, s, "The Service \"web-notarget\" is invalid: \n* spec.ports[0].port: Invalid value: 70000: must be between 1 and 65535, inclusive\n* spec.ports[0].targetPort: Invalid value: 70000: must be between 1 and 65535, inclusive\n",
			"patch", "svc", "web-notarget", "--type=merge", "-p", `{"spec":{"ports":[{"name":"http","port":70000}]}}`)
	})

	t.Run("type changes", func(t *testing.T) {
		expectOut(t, s, "service/web patched\n", "patch", "svc", "web", "--type=merge", "-p", `{"spec":{"type":"ExternalName","externalName":"x.example.com"}}`)
		expectOut(t, s, "service/web patched\n", "patch", "svc", "web", "--type=json", "-p", `[{"op":"add","path":"/spec/ports/0/nodePort","value":30080}]`)
		expectOut(t, s, `{"externalName":"x.example.com","ports":[{"nodePort":30080,"port":80,"protocol":"TCP","targetPort":8080}],"selector":{"app":"web"},"sessionAffinity":"None","type":"ExternalName"}`,
			"get", "svc", "web", "-o", "jsonpath={.spec}")
		expectOut(t, s, "service/web-np patched\n", "patch", "svc", "web-np", "--type=merge", "-p", `{"spec":{"type":"ClusterIP"}}`)
		expectOut(t, s, `ClusterIP [{"port":80,"protocol":"TCP","targetPort":"http"}]`, "get", "svc", "web-np", "-o", "jsonpath={.spec.type} {.spec.ports}")
		expectOut(t, s, "service \"web\" deleted from default namespace\n", "delete", "svc", "web")
	})

	t.Run("expose", func(t *testing.T) {
		expectOut(t, s, "deployment.apps/web created\n", "create", "deployment", "web", "--image=nginx")
		expectOut(t, s, "service/web exposed\n", "expose", "deployment", "web", "--port=80")
		expectOut(t, s, `ClusterIP {"app":"web"} [{"port":80,"protocol":"TCP","targetPort":80}]`, "get", "svc", "web", "-o",
			"jsonpath={.spec.type} {.spec.selector} {.spec.ports}")
		rows := maskServices(t, table(t, ok(t, s, "get", "svc", "web").Stdout))
		if got := join(rows); got != "NAME | TYPE | CLUSTER-IP | EXTERNAL-IP | PORT(S) | AGE\nweb | ClusterIP | IP | <none> | 80/TCP | AGE\n" {
			t.Errorf("get svc web after expose:\n%s", got)
		}
	})
}
