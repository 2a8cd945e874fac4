package registry

import (
	"log/slog"

	"github.com/miniapi/miniapi/pkg/storage"
)

// Options configure the built-in kinds that need more than their rules.
type Options struct {
	// Store keeps what kinds allocate outside their objects (Service
	// ClusterIPs and NodePorts), under keys of its own. Without one,
	// every Service write that needs an allocation fails.
	Store storage.Store
	// ServiceClusterIPRange is the CIDR ClusterIPs come from
	// (kube-apiserver's --service-cluster-ip-range); DefaultServiceClusterIPRange
	// when empty.
	ServiceClusterIPRange string
	// ServiceNodePortRange is the range NodePorts come from
	// (--service-node-port-range); DefaultServiceNodePortRange when empty.
	ServiceNodePortRange string
	// Logger gets what a start-up repair of the ranges changed;
	// slog.Default() when nil.
	Logger *slog.Logger
	// SharedStore says other servers allocate from Store too (several
	// servers on one etcd). The start-up repair then frees no value that no
	// stored Service holds: another server may have just allocated it and
	// be about to store its Service.
	SharedStore bool
}

// kube-apiserver's defaults for the Service ranges.
const (
	DefaultServiceClusterIPRange = "10.96.0.0/12"
	DefaultServiceNodePortRange  = "30000-32767"
)

// withDefaults fills the empty ranges.
func (o Options) withDefaults() Options {
	if o.ServiceClusterIPRange == "" {
		o.ServiceClusterIPRange = DefaultServiceClusterIPRange
	}
	if o.ServiceNodePortRange == "" {
		o.ServiceNodePortRange = DefaultServiceNodePortRange
	}
	return o
}

// Builtin returns the built-in resources, core group first, in the order
// discovery lists their groups. Each call returns new values, so every
// server has its own. It fails only on a Service range it cannot parse.
func Builtin(opts Options) ([]*Resource, error) {
	svc, err := services(opts.withDefaults())
	if err != nil {
		return nil, err
	}
	return []*Resource{
		namespaces(),
		nodes(),
		pods(opts),
		events(),
		svc,
		endpoints(),
		configMaps(),
		secrets(),
		serviceAccounts(),
		persistentVolumeClaims(opts),
		persistentVolumes(),
		resourceQuotas(),
		limitRanges(),
		podTemplates(),
		replicationControllers(),
		controllerRevisions(),
		daemonSets(),
		replicaSets(),
		deployments(),
		statefulSets(),
		eventsV1(),
		selfSubjectReviews(),
		tokenReviews(),
		localSubjectAccessReviews(),
		selfSubjectAccessReviews(),
		selfSubjectRulesReviews(),
		subjectAccessReviews(),
		horizontalPodAutoscalers(),
		horizontalPodAutoscalersV1(),
		jobs(),
		cronJobs(),
		ingressClasses(),
		ingresses(),
		networkPolicies(),
		podDisruptionBudgets(),
		clusterRoleBindings(),
		clusterRoles(),
		roleBindings(),
		roles(),
		storageClasses(),
		priorityClasses(opts),
		leases(),
		endpointSlices(),
	}, nil
}

// NewBuiltin returns a registry of the built-in resources.
func NewBuiltin(opts Options) (*Registry, error) {
	resources, err := Builtin(opts)
	if err != nil {
		return nil, err
	}
	return New(resources...)
}
