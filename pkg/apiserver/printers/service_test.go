package printers

import (
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func svcPorts(ports ...corev1.ServicePort) []corev1.ServicePort { return ports }

// The rows of the reference's `kubectl get svc -o wide` (section 3).
func TestServiceCells(t *testing.T) {
	sel := map[string]string{"app": "web"}
	tcp := func(port, nodePort int32) corev1.ServicePort {
		return corev1.ServicePort{Port: port, NodePort: nodePort, Protocol: corev1.ProtocolTCP}
	}
	cases := []struct {
		svc  corev1.Service
		want string
	}{
		{corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "ext"}, Spec: corev1.ServiceSpec{Type: "ExternalName", ExternalName: "db.example.com"}},
			"ext ExternalName <none> db.example.com <none> 2s <none>"},
		{corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "kubernetes"}, Spec: corev1.ServiceSpec{Type: "ClusterIP", ClusterIPs: []string{"10.96.0.1"}, Ports: svcPorts(tcp(443, 0))}},
			"kubernetes ClusterIP 10.96.0.1 <none> 443/TCP 2s <none>"},
		{corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web-headless"}, Spec: corev1.ServiceSpec{Type: "ClusterIP", ClusterIPs: []string{"None"}, Selector: sel, Ports: svcPorts(tcp(80, 0))}},
			"web-headless ClusterIP None <none> 80/TCP 2s app=web"},
		{corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web-lb"}, Spec: corev1.ServiceSpec{Type: "LoadBalancer", ClusterIPs: []string{"10.96.0.135"}, Selector: sel, Ports: svcPorts(tcp(443, 31927))}},
			"web-lb LoadBalancer 10.96.0.135 <pending> 443:31927/TCP 2s app=web"},
		{corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web-notarget"}, Spec: corev1.ServiceSpec{Type: "ClusterIP", ClusterIPs: []string{"10.96.0.228"}, Selector: sel,
			Ports: svcPorts(tcp(80, 0), corev1.ServicePort{Port: 9090, Protocol: corev1.ProtocolUDP})}},
			"web-notarget ClusterIP 10.96.0.228 <none> 80/TCP,9090/UDP 2s app=web"},
		{corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web-np"}, Spec: corev1.ServiceSpec{Type: "NodePort", ClusterIPs: []string{"10.96.0.44"}, Selector: sel, Ports: svcPorts(tcp(80, 30887))}},
			"web-np NodePort 10.96.0.44 <none> 80:30887/TCP 2s app=web"},
		{corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "ext-ips"}, Spec: corev1.ServiceSpec{Type: "ClusterIP", ClusterIPs: []string{"10.96.0.9"}, ExternalIPs: []string{"192.0.2.1", "192.0.2.2"}, Ports: svcPorts(tcp(80, 0))}},
			"ext-ips ClusterIP 10.96.0.9 192.0.2.1,192.0.2.2 80/TCP 2s <none>"},
		{corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "lb-ready"}, Spec: corev1.ServiceSpec{Type: "LoadBalancer", ClusterIPs: []string{"10.96.0.7"}, Ports: svcPorts(tcp(80, 30001))},
			Status: corev1.ServiceStatus{LoadBalancer: corev1.LoadBalancerStatus{Ingress: []corev1.LoadBalancerIngress{{IP: "198.51.100.9"}, {Hostname: "lb.example.com"}}}}},
			"lb-ready LoadBalancer 10.96.0.7 198.51.100.9,lb.example.com 80:30001/TCP 2s <none>"},
	}
	for _, c := range cases {
		c.svc.CreationTimestamp = created
		table, err := Services(&c.svc, now)
		if err != nil {
			t.Fatal(err)
		}
		var cells []string
		for _, cell := range table.Rows[0].Cells {
			cells = append(cells, cell.(string))
		}
		if got := strings.Join(cells, " "); got != c.want {
			t.Errorf("%s:\n got: %s\nwant: %s", c.svc.Name, got, c.want)
		}
	}
}

// The reference's server-side Table columns (section 3).
func TestServiceColumns(t *testing.T) {
	table, err := Services(&corev1.ServiceList{}, now)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"Name/string/0/name", "Type/string/0", "Cluster-IP/string/0", "External-IP/string/0", "Port(s)/string/0", "Age/string/0", "Selector/string/1"}
	if got := header(table.ColumnDefinitions); !reflect.DeepEqual(got, want) {
		t.Errorf("columns = %v", got)
	}
	for i, prefix := range []string{"Name must be unique", "type determines how the Service is exposed. Defaults to Clus",
		"clusterIP is the IP address of the service and is usually as", "externalIPs is a list of IP addresses for which nodes in the",
		"The list of ports that are exposed by this service. More inf", "CreationTimestamp is a timestamp", "Route service traffic to pods with label keys and values mat"} {
		if d := table.ColumnDefinitions[i].Description; !strings.HasPrefix(d, prefix) {
			t.Errorf("column %d description %q", i, d)
		}
	}
}
