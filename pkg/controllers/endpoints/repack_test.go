//lint:file-ignore SA1019 v1 Endpoints is deprecated in kube 1.33+; serving and publishing it is what this file is for

package endpoints

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func ipAddrs(ips ...string) []corev1.EndpointAddress {
	out := make([]corev1.EndpointAddress, len(ips))
	for i, ip := range ips {
		out[i] = corev1.EndpointAddress{IP: ip}
	}
	return out
}

func TestRepack(t *testing.T) {
	http := corev1.EndpointPort{Name: "http", Port: 80, Protocol: "TCP"}
	metrics := corev1.EndpointPort{Name: "metrics", Port: 9090, Protocol: "UDP"}
	for name, tc := range map[string]struct {
		in   []corev1.EndpointSubset
		want string
	}{
		// The reference's web-notarget: kube printed port 80 first.
		"one subset per address set, kube's port order": {
			in: []corev1.EndpointSubset{
				{Addresses: ipAddrs("10.244.0.11"), Ports: []corev1.EndpointPort{metrics, http}},
				{Addresses: ipAddrs("10.244.0.10"), Ports: []corev1.EndpointPort{metrics}},
				{Addresses: ipAddrs("10.244.0.10"), Ports: []corev1.EndpointPort{http}},
			},
			want: `[{"addresses":[{"ip":"10.244.0.10"},{"ip":"10.244.0.11"}],"ports":[{"name":"http","port":80,"protocol":"TCP"},{"name":"metrics","port":9090,"protocol":"UDP"}]}]`,
		},
		"not ready wins, addresses sorted as bytes": {
			in: []corev1.EndpointSubset{
				{Addresses: ipAddrs("10.0.0.9", "10.0.0.10"), Ports: []corev1.EndpointPort{http}},
				{NotReadyAddresses: ipAddrs("10.0.0.9"), Ports: []corev1.EndpointPort{http}},
			},
			want: `[{"addresses":[{"ip":"10.0.0.10"}],"notReadyAddresses":[{"ip":"10.0.0.9"}],"ports":[{"name":"http","port":80,"protocol":"TCP"}]}]`,
		},
		"no ports": {
			in:   []corev1.EndpointSubset{{Addresses: ipAddrs("10.0.0.2")}, {Addresses: ipAddrs("10.0.0.1")}},
			want: `[{"addresses":[{"ip":"10.0.0.1"},{"ip":"10.0.0.2"}]}]`,
		},
		"empty": {want: `null`},
	} {
		got := Repack(tc.in)
		if s := toJSON(t, got); s != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", name, s, tc.want)
		}
		if again := toJSON(t, Repack(got)); again != tc.want {
			t.Errorf("%s: repacking again gives %s", name, again)
		}
	}
}
