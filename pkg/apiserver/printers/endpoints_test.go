//lint:file-ignore SA1019 v1 Endpoints is deprecated in kube 1.33+; serving and publishing it is what this file is for

package printers

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func addrs(ips ...string) []corev1.EndpointAddress {
	out := make([]corev1.EndpointAddress, len(ips))
	for i, ip := range ips {
		out[i] = corev1.EndpointAddress{IP: ip}
	}
	return out
}

// The rows of the reference's `kubectl get endpoints`.
func TestEndpointsTable(t *testing.T) {
	meta := func(name string) metav1.ObjectMeta { return metav1.ObjectMeta{Name: name, CreationTimestamp: created} }
	two := addrs("10.244.0.10", "10.244.0.11")
	list := &corev1.EndpointsList{ListMeta: metav1.ListMeta{ResourceVersion: "434"}, Items: []corev1.Endpoints{
		{ObjectMeta: meta("web"), Subsets: []corev1.EndpointSubset{{Addresses: two, Ports: []corev1.EndpointPort{{Name: "http", Port: 8080}}}}},
		{ObjectMeta: meta("web-notarget"), Subsets: []corev1.EndpointSubset{{Addresses: two, Ports: []corev1.EndpointPort{{Name: "http", Port: 80}, {Name: "metrics", Port: 9090}}}}},
		{ObjectMeta: meta("web-np")},
		{ObjectMeta: meta("headless-noports"), Subsets: []corev1.EndpointSubset{{Addresses: two}}},
		{ObjectMeta: meta("all-not-ready"), Subsets: []corev1.EndpointSubset{{NotReadyAddresses: two, Ports: []corev1.EndpointPort{{Port: 80}}}}},
		{ObjectMeta: meta("v6"), Subsets: []corev1.EndpointSubset{{Addresses: addrs("fd00::1"), Ports: []corev1.EndpointPort{{Port: 80}}}}},
	}}
	table, err := Endpoints(list, now)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := header(table.ColumnDefinitions), []string{"Name/string/0/name", "Endpoints/string/0", "Age/string/0"}; !reflect.DeepEqual(got, want) {
		t.Errorf("columns = %v, want %v", got, want)
	}
	checkDescriptions(t, table.ColumnDefinitions, map[string]string{
		"Endpoints": "The set of all endpoints is the union of all subsets. Addres",
	})
	want := []string{
		`["web","10.244.0.10:8080,10.244.0.11:8080","2s"]`,
		`["web-notarget","10.244.0.10:80,10.244.0.11:80,10.244.0.10:9090 + 1 more...","2s"]`,
		`["web-np","\u003cnone\u003e","2s"]`,
		`["headless-noports","10.244.0.10,10.244.0.11","2s"]`,
		`["all-not-ready","","2s"]`,
		`["v6","[fd00::1]:80","2s"]`,
	}
	if table.ResourceVersion != "434" || len(table.Rows) != len(want) {
		t.Fatalf("table rv %q with %d rows", table.ResourceVersion, len(table.Rows))
	}
	for i, w := range want {
		if got := cellsJSON(t, table.Rows[i]); got != w {
			t.Errorf("row %d = %s, want %s", i, got, w)
		}
	}
}

// The rows of the reference's `kubectl get endpointslices`.
func TestEndpointSliceTable(t *testing.T) {
	port := func(name string, n int32) discoveryv1.EndpointPort {
		return discoveryv1.EndpointPort{Name: &name, Port: &n}
	}
	named := "http"
	ready, notReady := true, false
	eps := []discoveryv1.Endpoint{
		{Addresses: []string{"10.244.0.10"}, Conditions: discoveryv1.EndpointConditions{Ready: &ready}},
		{Addresses: []string{"10.244.0.11"}, Conditions: discoveryv1.EndpointConditions{Ready: &notReady}},
	}
	meta := func(name string) metav1.ObjectMeta { return metav1.ObjectMeta{Name: name, CreationTimestamp: created} }
	list := &discoveryv1.EndpointSliceList{Items: []discoveryv1.EndpointSlice{
		{ObjectMeta: meta("web-6khrr"), AddressType: "IPv4", Ports: []discoveryv1.EndpointPort{port("http", 8080)}, Endpoints: eps},
		{ObjectMeta: meta("web-notarget-pnj2b"), AddressType: "IPv4", Ports: []discoveryv1.EndpointPort{port("metrics", 9090), port("http", 80)}, Endpoints: eps},
		{ObjectMeta: meta("web-np-cc4m7"), AddressType: "IPv4", Endpoints: eps},
		{ObjectMeta: meta("empty-abcde"), AddressType: "IPv4"},
		{ObjectMeta: meta("many-abcde"), AddressType: "IPv4", Ports: []discoveryv1.EndpointPort{
			port("a", 1), port("b", 2), port("c", 3), port("d", 4), {Name: &named}, {},
		}, Endpoints: append(eps, discoveryv1.Endpoint{Addresses: []string{"10.244.0.12", "10.244.0.13"}})},
	}}
	table, err := EndpointSlices(list, now)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := header(table.ColumnDefinitions), []string{"Name/string/0/name", "AddressType/string/0", "Ports/string/0", "Endpoints/string/0", "Age/string/0"}; !reflect.DeepEqual(got, want) {
		t.Errorf("columns = %v, want %v", got, want)
	}
	checkDescriptions(t, table.ColumnDefinitions, map[string]string{
		"AddressType": "addressType specifies the type of address carried by this En",
		"Ports":       "ports specifies the list of network ports exposed by each en",
		"Endpoints":   "endpoints is a list of unique endpoints in this slice. Each ",
	})
	want := []string{
		`["web-6khrr","IPv4","8080","10.244.0.10,10.244.0.11","2s"]`,
		`["web-notarget-pnj2b","IPv4","9090,80","10.244.0.10,10.244.0.11","2s"]`,
		`["web-np-cc4m7","IPv4","\u003cunset\u003e","10.244.0.10,10.244.0.11","2s"]`,
		`["empty-abcde","IPv4","\u003cunset\u003e","\u003cunset\u003e","2s"]`,
		`["many-abcde","IPv4","1,2,3 + 3 more...","10.244.0.10,10.244.0.11,10.244.0.12 + 1 more...","2s"]`,
	}
	for i, w := range want {
		if got := cellsJSON(t, table.Rows[i]); got != w {
			t.Errorf("row %d = %s, want %s", i, got, w)
		}
	}
}
