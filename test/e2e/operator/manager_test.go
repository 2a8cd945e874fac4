package operator

import (
	"crypto/tls"
	"net"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

const (
	ns         = "default"
	electionID = "memcached-operator.cache.example.com"
)

// newManager is the manager kubebuilder's cmd/main.go builds with its
// defaults: leader election on a Lease, and metrics served over HTTPS
// (self-signed, HTTP/2 off) behind controller-runtime's authentication
// and authorization filter, which asks the API server a TokenReview for
// each scrape's bearer token and a SubjectAccessReview for get /metrics.
// The metrics address is a free loopback port where main.go says :8443.
func newManager(cfg *rest.Config, scheme *runtime.Scheme, metricsAddr string) (ctrl.Manager, error) {
	disableHTTP2 := func(c *tls.Config) { c.NextProtos = []string{"http/1.1"} }
	return ctrl.NewManager(cfg, ctrl.Options{
		Scheme: scheme,
		Metrics: metricsserver.Options{
			BindAddress:    metricsAddr,
			SecureServing:  true,
			TLSOpts:        []func(*tls.Config){disableHTTP2},
			FilterProvider: filters.WithAuthenticationAndAuthorization,
		},
		LeaderElection:                true,
		LeaderElectionID:              electionID,
		LeaderElectionNamespace:       ns,
		LeaderElectionReleaseOnCancel: true,
	})
}

// freeLoopbackAddress is a loopback address with a port nothing listens
// on now. controller-runtime does not tell where its metrics server
// bound, so the suite picks the port rather than asking for port 0.
func freeLoopbackAddress() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}
