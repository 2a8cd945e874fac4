//lint:file-ignore SA1019 v1 Endpoints is deprecated in kube 1.33+; serving and publishing it is what this file is for

package kubectl

import (
	"context"
	"encoding/json"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/miniapi/miniapi/test/e2e/harness"
)

// Section 5 of ../shared/reference/kinds-crd-ssa-1.37.md: Endpoints and
// EndpointSlices made by the controllers from the simulated pods, as
// kubectl 1.37 shows them.

const endpointsManifest = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 3
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: nginx
        image: nginx
        ports:
        - name: web
          containerPort: 8080
---
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  selector:
    app: web
  ports:
  - name: http
    port: 80
    targetPort: web
`

const epsBadYAML = `apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: manual
addressType: IPv4
endpoints:
- addresses: ["not-an-ip"]
ports:
- port: 80
  protocol: TCP
`

const endpointsWarning = "Warning: v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice\n"

// readyPods waits until the Deployment's pods are exactly n, all Ready
// with an IP, and returns them sorted by IP.
func readyPods(t *testing.T, s *harness.Server, n int) []corev1.Pod {
	t.Helper()
	var pods []corev1.Pod
	eventually(t, 30*time.Second, func() string {
		list, err := s.Client().CoreV1().Pods("default").List(context.Background(), metav1.ListOptions{LabelSelector: "app=web"})
		if err != nil {
			return err.Error()
		}
		pods = nil
		for _, p := range list.Items {
			if p.DeletionTimestamp != nil {
				return "a pod is still terminating"
			}
			if p.Status.PodIP == "" || !podReady(&p) {
				return fmt.Sprintf("pod %s not ready yet", p.Name)
			}
			pods = append(pods, p)
		}
		if len(pods) != n {
			return fmt.Sprintf("%d pods, want %d", len(pods), n)
		}
		return ""
	})
	slices.SortFunc(pods, func(a, b corev1.Pod) int {
		return netip.MustParseAddr(a.Status.PodIP).Compare(netip.MustParseAddr(b.Status.PodIP))
	})
	return pods
}

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// endpointsCell is what kubectl's ENDPOINTS column shows for ready pods
// on port: kube sorts the addresses as strings.
func endpointsCell(pods []corev1.Pod, port int) string {
	var hostPorts []string
	for _, p := range pods {
		hostPorts = append(hostPorts, p.Status.PodIP)
	}
	slices.Sort(hostPorts)
	for i := range hostPorts {
		hostPorts[i] = fmt.Sprintf("%s:%d", hostPorts[i], port)
	}
	return strings.Join(hostPorts, ",")
}

// getEndpoints runs kubectl get on v1 Endpoints and checks kube's
// deprecation warning is on stderr.
func getEndpoints(t *testing.T, s *harness.Server, args ...string) string {
	t.Helper()
	res := ok(t, s, append([]string{"get"}, args...)...)
	if res.Stderr != endpointsWarning {
		t.Errorf("kubectl get %s: stderr %q, want the deprecation warning", strings.Join(args, " "), res.Stderr)
	}
	return res.Stdout
}

func TestEndpointsFollowPods(t *testing.T) {
	t.Parallel()
	s := start(t)
	ok(t, s, "apply", "-f", manifest(t, "web.yaml", endpointsManifest))
	pods := readyPods(t, s, 3)

	// The Endpoints lists the three pods on the named target port.
	wantRows := func(pods []corev1.Pod) string {
		return "NAME | ENDPOINTS | AGE\nweb | " + endpointsCell(pods, 8080) + " | AGE\n"
	}
	eventually(t, 10*time.Second, func() string {
		if got := join(table(t, getEndpoints(t, s, "endpoints", "web"))); got != wantRows(pods) {
			return fmt.Sprintf("kubectl get endpoints web:\n%s", got)
		}
		return ""
	})
	if got := join(table(t, getEndpoints(t, s, "ep", "-o", "wide"))); !strings.Contains(got, "web | "+endpointsCell(pods, 8080)) {
		t.Errorf("kubectl get ep -o wide:\n%s", got)
	}
	if got := getEndpoints(t, s, "endpoints", "web", "-o", "jsonpath={.metadata.labels}"); got != `{"endpoints.kubernetes.io/managed-by":"endpoint-controller"}` {
		t.Errorf("endpoints labels = %s", got)
	}
	// The trigger time is dropped by a write no pod or Service change
	// explains (a retry after a conflict), as kube's controller does.
	if got := getEndpoints(t, s, "endpoints", "web", "-o", "jsonpath={.metadata.annotations}"); got != "" && !strings.HasPrefix(got, `{"endpoints.kubernetes.io/last-change-trigger-time":"20`) {
		t.Errorf("endpoints annotations = %s", got)
	}

	// One EndpointSlice with the three endpoints.
	slice := strings.TrimPrefix(ok(t, s, "get", "endpointslices", "-l", "kubernetes.io/service-name=web", "-o", "name").Stdout, "endpointslice.discovery.k8s.io/")
	slice = strings.TrimSpace(slice)
	if !strings.HasPrefix(slice, "web-") || len(slice) != len("web-")+5 {
		t.Fatalf("slice name %q, want web-<5 random>", slice)
	}
	// The slice keeps each endpoint where it is and appends new ones, so
	// its order is the order the pods became ready: compare as a set.
	sliceRows := func(args ...string) string {
		rows := table(t, ok(t, s, args...).Stdout)
		for _, r := range rows[1:] {
			if len(r) == 5 {
				eps := strings.Split(r[3], ",")
				slices.Sort(eps)
				r[3] = strings.Join(eps, ",")
			}
		}
		return join(rows)
	}
	sorted := func(pods []corev1.Pod) string {
		var out []string
		for _, p := range pods {
			out = append(out, p.Status.PodIP)
		}
		slices.Sort(out)
		return strings.Join(out, ",")
	}
	sliceTable := "NAME | ADDRESSTYPE | PORTS | ENDPOINTS | AGE\n" + slice + " | IPv4 | 8080 | " + sorted(pods) + " | AGE\n"
	eventually(t, 10*time.Second, func() string {
		if got := sliceRows("get", "endpointslices"); got != sliceTable {
			return "kubectl get endpointslices:\n" + got
		}
		return ""
	})
	if got := sliceRows("get", "endpointslices", "-o", "wide"); got != sliceTable {
		t.Errorf("kubectl get endpointslices -o wide:\n%s", got)
	}
	if got := jsonpath(t, s, "{.metadata.labels}", "get", "endpointslice", slice); got != `{"endpointslice.kubernetes.io/managed-by":"endpointslice-controller.k8s.io","kubernetes.io/service-name":"web"}` {
		t.Errorf("slice labels = %s", got)
	}
	if got := jsonpath(t, s, "{.metadata.ownerReferences}", "get", "endpointslice", slice); !strings.HasPrefix(got, `[{"apiVersion":"v1","blockOwnerDeletion":true,"controller":true,"kind":"Service","name":"web","uid":"`) {
		t.Errorf("slice owner = %s", got)
	}

	// Scale down: both follow.
	ok(t, s, "scale", "deployment", "web", "--replicas=1")
	pods = readyPods(t, s, 1)
	eventually(t, 10*time.Second, func() string {
		if got := join(table(t, getEndpoints(t, s, "endpoints", "web"))); got != wantRows(pods) {
			return "after scale down:\n" + got
		}
		return ""
	})
	eventually(t, 10*time.Second, func() string {
		if got, want := sliceRows("get", "endpointslices"), "NAME | ADDRESSTYPE | PORTS | ENDPOINTS | AGE\n"+slice+" | IPv4 | 8080 | "+sorted(pods)+" | AGE\n"; got != want {
			return "after scale down:\n" + got
		}
		return ""
	})

	// A pod that stops being ready moves to notReadyAddresses; its slice
	// endpoint says ready and serving false. The simulated kubelet leaves a
	// Running pod's conditions alone.
	p := pods[0]
	ok(t, s, "patch", "pod", p.Name, "--subresource=status", "--type=strategic",
		"-p", `{"status":{"conditions":[{"type":"Ready","status":"False","lastTransitionTime":"2026-12-01T08:45:00Z"}]}}`)
	ref := fmt.Sprintf(`{"kind":"Pod","name":"%s","namespace":"default","uid":"%s"}`, p.Name, p.UID)
	wantSubsets := fmt.Sprintf(`[{"notReadyAddresses":[{"ip":"%s","nodeName":"%s","targetRef":%s}],"ports":[{"name":"http","port":8080,"protocol":"TCP"}]}]`,
		p.Status.PodIP, p.Spec.NodeName, ref)
	eventually(t, 10*time.Second, func() string {
		if got := getEndpoints(t, s, "endpoints", "web", "-o", "jsonpath={.subsets}"); got != wantSubsets {
			return "subsets " + got
		}
		return ""
	})
	wantEndpoints := fmt.Sprintf(`[{"addresses":["%s"],"conditions":{"ready":false,"serving":false,"terminating":false},"nodeName":"%s","targetRef":%s}]`,
		p.Status.PodIP, p.Spec.NodeName, ref)
	eventually(t, 10*time.Second, func() string {
		if got := jsonpath(t, s, "{.items[0].endpoints}", "get", "endpointslices", "-l", "kubernetes.io/service-name=web"); got != wantEndpoints {
			return "slice endpoints " + got
		}
		return ""
	})
	// The not-ready endpoint is still listed in the slice's Table.
	expectTable(t, s, "NAME | ADDRESSTYPE | PORTS | ENDPOINTS | AGE\n"+slice+" | IPv4 | 8080 | "+p.Status.PodIP+" | AGE\n", "get", "endpointslices")

	// kubectl describe renders the slice as in the reference.
	wantDescribe := fmt.Sprintf(`Name:         %s
Namespace:    default
Labels:       endpointslice.kubernetes.io/managed-by=endpointslice-controller.k8s.io
              kubernetes.io/service-name=web
Annotations:  <none>
AddressType:  IPv4
Ports:
  Name  Port  Protocol
  ----  ----  --------
  http  8080  TCP
Endpoints:
  - Addresses:  %s
    Conditions:
      Ready:    false
    Hostname:   <unset>
    TargetRef:  Pod/%s
    NodeName:   %s
    Zone:       <unset>
Events:         <none>
`, slice, p.Status.PodIP, p.Name, p.Spec.NodeName)
	expectOut(t, s, wantDescribe, "describe", "endpointslice", "-l", "kubernetes.io/service-name=web")
}

// Slices and Endpoints are validated with kube's messages, and the
// deprecation warning comes with every Endpoints request, errors too.
func TestEndpointSliceValidation(t *testing.T) {
	t.Parallel()
	s := start(t)
	fails(t, s, `The EndpointSlice "manual" is invalid: endpoints[0].addresses[0]: Invalid value: "not-an-ip": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)`+"\n",
		"create", "-f", manifest(t, "eps-bad.yaml", epsBadYAML))
	good := strings.Replace(epsBadYAML, "not-an-ip", "10.244.0.10", 1)
	expectOut(t, s, "endpointslice.discovery.k8s.io/manual created\n", "create", "-f", manifest(t, "eps.yaml", good))
	// The addresses are checked against the new type too, as in kube.
	fails(t, s, `The EndpointSlice "manual" is invalid: 
* endpoints[0].addresses: Invalid value: "10.244.0.10": must be an IPv6 address
* addressType: Invalid value: "IPv6": field is immutable
`, "patch", "endpointslice", "manual", "--type=merge", "-p", `{"addressType":"IPv6"}`)
	fails(t, s, endpointsWarning+`Error from server (NotFound): endpoints "nope" not found`+"\n", "get", "endpoints", "nope")

	// A Service without a selector gets no Endpoints from the controller;
	// one written by hand is kept and printed.
	res := ok(t, s, "create", "-f", manifest(t, "ep.yaml", `apiVersion: v1
kind: Service
metadata:
  name: manual
spec:
  ports: [{port: 80, targetPort: 8080}]
---
apiVersion: v1
kind: Endpoints
metadata:
  name: manual
subsets:
- addresses: [{ip: 10.1.2.3}, {ip: 10.1.2.4}]
  ports: [{port: 8080}]
`))
	if res.Stdout != "service/manual created\nendpoints/manual created\n" || res.Stderr != endpointsWarning {
		t.Errorf("create endpoints: %s", res)
	}
	var ep corev1.Endpoints
	if err := json.Unmarshal([]byte(getEndpoints(t, s, "endpoints", "manual", "-o", "json")), &ep); err != nil {
		t.Fatal(err)
	}
	if len(ep.Labels) != 0 || len(ep.Subsets) != 1 || ep.Subsets[0].Ports[0].Protocol != corev1.ProtocolTCP {
		t.Errorf("manual endpoints = %+v", ep)
	}
	expectTable(t, s, "NAME | ENDPOINTS | AGE\nmanual | 10.1.2.3:8080,10.1.2.4:8080 | AGE\n", "get", "endpoints", "manual")
}
