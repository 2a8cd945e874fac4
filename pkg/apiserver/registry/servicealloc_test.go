package registry

import (
	"context"
	"path/filepath"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/miniapi/miniapi/pkg/storage/boltstore"
)

func newAllocations(t *testing.T) *serviceAllocations {
	t.Helper()
	store, err := boltstore.Open(filepath.Join(t.TempDir(), "db"), boltstore.Options{HistorySize: 100})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	a, err := newServiceAllocations(Options{Store: store}.withDefaults())
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// begin runs the create hook on a defaulted Service and finishes it as
// stored.
func begin(t *testing.T, a *serviceAllocations, svc *corev1.Service) error {
	t.Helper()
	serviceStrategy{}.PrepareForCreate(svc)
	finish, err := a.BeginCreate(context.Background(), svc, false)
	if err == nil {
		finish(context.Background(), true)
	}
	return err
}

func TestAllocationSetsIPFamilies(t *testing.T) {
	a := newAllocations(t)
	// Headless without a selector names both families, as on kube.
	svc := newService("headless", func(s *corev1.ServiceSpec) { s.ClusterIP = "None"; s.Selector = nil })
	if err := begin(t, a, svc); err != nil {
		t.Fatal(err)
	}
	if got := specJSON(t, svc.Spec); got != `{"ports":[{"protocol":"TCP","port":80,"targetPort":80}],"clusterIP":"None","clusterIPs":["None"],"type":"ClusterIP","sessionAffinity":"None","ipFamilies":["IPv4","IPv6"],"ipFamilyPolicy":"RequireDualStack","internalTrafficPolicy":"Cluster"}` {
		t.Errorf("headless without selector: %s", got)
	}

	v6 := newService("v6", func(s *corev1.ServiceSpec) { s.ClusterIP = "fd00::10" })
	err := begin(t, a, v6)
	if !apierrors.IsInvalid(err) || err.Error() != `Service "v6" is invalid: spec.clusterIPs[0]: Invalid value: ["fd00::10"]: IPv6 is not configured on this cluster` {
		t.Errorf("IPv6 ClusterIP: %v", err)
	}
	dual := newService("dual", func(s *corev1.ServiceSpec) { p := corev1.IPFamilyPolicyRequireDualStack; s.IPFamilyPolicy = &p })
	err = begin(t, a, dual)
	if !apierrors.IsInvalid(err) || err.Error() != `Service "dual" is invalid: spec.ipFamilyPolicy: Invalid value: "RequireDualStack": this cluster is not configured for dual-stack services` {
		t.Errorf("RequireDualStack: %v", err)
	}
}

// Ports of one number (TCP and UDP) share one NodePort, as on kube.
func TestNodePortSharedByProtocols(t *testing.T) {
	a := newAllocations(t)
	svc := newService("dns", func(s *corev1.ServiceSpec) {
		s.Type = corev1.ServiceTypeNodePort
		s.Ports = []corev1.ServicePort{{Name: "tcp", Port: 53}, {Name: "udp", Port: 53, Protocol: corev1.ProtocolUDP}}
	})
	if err := begin(t, a, svc); err != nil {
		t.Fatal(err)
	}
	if p := svc.Spec.Ports; p[0].NodePort == 0 || p[0].NodePort != p[1].NodePort {
		t.Errorf("nodePorts %d and %d", p[0].NodePort, p[1].NodePort)
	}
	taken, err := a.ports.Has(context.Background(), int(svc.Spec.Ports[0].NodePort))
	if err != nil || !taken {
		t.Errorf("the shared nodePort is not recorded: %v %v", taken, err)
	}
	a.AfterDelete(context.Background(), svc)
	taken, err = a.ports.Has(context.Background(), int(svc.Spec.Ports[0].NodePort))
	if err != nil || taken {
		t.Errorf("delete did not give the nodePort back: %v %v", taken, err)
	}
}

// A failed write gives back what its hook took.
func TestFinishFailureReleases(t *testing.T) {
	a := newAllocations(t)
	ctx := context.Background()
	svc := newService("lb", func(s *corev1.ServiceSpec) {
		s.Type = corev1.ServiceTypeLoadBalancer
		s.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyLocal
	})
	serviceStrategy{}.PrepareForCreate(svc)
	finish, err := a.BeginCreate(ctx, svc, false)
	if err != nil {
		t.Fatal(err)
	}
	if svc.Spec.HealthCheckNodePort == 0 || svc.Spec.Ports[0].NodePort == 0 || svc.Spec.ClusterIP == "" {
		t.Fatalf("LoadBalancer with Local traffic got %+v", svc.Spec)
	}
	finish(ctx, false)
	ip := parseIP(svc.Spec.ClusterIP)
	for _, check := range []func() (bool, error){
		func() (bool, error) { return a.ips.Has(ctx, ip) },
		func() (bool, error) { return a.ports.Has(ctx, int(svc.Spec.Ports[0].NodePort)) },
		func() (bool, error) { return a.ports.Has(ctx, int(svc.Spec.HealthCheckNodePort)) },
	} {
		if taken, err := check(); err != nil || taken {
			t.Errorf("still taken after a failed write: %v %v", taken, err)
		}
	}
}
