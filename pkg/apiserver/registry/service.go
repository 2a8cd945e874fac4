package registry

// Services: kube's defaults, validation and type changes, a status
// subresource, and ClusterIPs and NodePorts allocated from the server's
// ranges (servicealloc.go).

import (
	"net"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/miniapi/miniapi/pkg/apiserver/printers"
)

// services is core/v1 services; opts has its defaults filled.
func services(opts Options) (*Resource, error) {
	hooks, err := newServiceAllocations(opts)
	if err != nil {
		return nil, err
	}
	s := serviceStrategy{}
	return &Resource{
		Version: "v1", Resource: "services", Kind: "Service", ListKind: "ServiceList", Singular: "service",
		ShortNames: []string{"svc"}, Categories: []string{"all"}, Namespaced: true,
		New:     func() runtime.Object { return &corev1.Service{} },
		NewList: func() runtime.Object { return &corev1.ServiceList{} },

		Strategy: s,
		Subresources: map[string]*Subresource{
			"status": {PrepareForUpdate: s.PrepareForStatusUpdate, ValidateUpdate: s.ValidateStatusUpdate},
			"proxy":  noContainers("services/proxy", "ServiceProxyOptions", "create", "delete", "get", "patch", "update"),
		},
		Hooks:    hooks,
		Table:    printers.Services,
		FieldSet: s.FieldSet,
	}, nil
}

type serviceStrategy struct{}

// PrepareForCreate clears status and applies defaults.
func (serviceStrategy) PrepareForCreate(obj runtime.Object) {
	svc := obj.(*corev1.Service)
	svc.Status = corev1.ServiceStatus{}
	defaultService(svc)
}

// PrepareForUpdate keeps the stored status, applies defaults and drops
// what the old type needed and the new one does not.
func (serviceStrategy) PrepareForUpdate(obj, old runtime.Object) {
	svc, o := obj.(*corev1.Service), old.(*corev1.Service)
	svc.Status = o.Status
	defaultService(svc)
	dropTypeDependentFields(svc, o)
}

// PrepareForStatusUpdate keeps the stored spec.
func (serviceStrategy) PrepareForStatusUpdate(obj, old runtime.Object) {
	svc := obj.(*corev1.Service)
	svc.Spec = old.(*corev1.Service).Spec
	defaultIngressIPMode(svc)
}

// Validate checks a new Service.
func (serviceStrategy) Validate(obj runtime.Object) field.ErrorList {
	return validateService(obj.(*corev1.Service))
}

// ValidateUpdate checks an update of the spec.
func (serviceStrategy) ValidateUpdate(obj, old runtime.Object) field.ErrorList {
	return validateServiceUpdate(obj.(*corev1.Service), old.(*corev1.Service))
}

// ValidateStatusUpdate checks a write to services/status: the load
// balancer's ingress points.
func (serviceStrategy) ValidateStatusUpdate(obj, old runtime.Object) field.ErrorList {
	svc, o := obj.(*corev1.Service), old.(*corev1.Service)
	errs := ValidateMetaUpdate(&svc.ObjectMeta, &o.ObjectMeta)
	return append(errs, validateLoadBalancerStatus(&svc.Status.LoadBalancer, svc, field.NewPath("status", "loadBalancer"))...)
}

// FieldSet offers what kube-apiserver's does for services.
func (serviceStrategy) FieldSet(obj runtime.Object) fields.Set {
	svc := obj.(*corev1.Service)
	return mergeFields(metaFields(svc, true), fields.Set{
		"spec.clusterIP": svc.Spec.ClusterIP,
		"spec.type":      string(svc.Spec.Type),
	})
}

// validateLoadBalancerStatus checks the ingress points a load balancer
// controller reports.
func validateLoadBalancerStatus(status *corev1.LoadBalancerStatus, svc *corev1.Service, path *field.Path) field.ErrorList {
	ingress := path.Child("ingress")
	if svc.Spec.Type != corev1.ServiceTypeLoadBalancer && len(status.Ingress) > 0 {
		return field.ErrorList{field.Forbidden(ingress, "may only be used when `spec.type` is 'LoadBalancer'")}
	}
	var errs field.ErrorList
	for i, ing := range status.Ingress {
		p := ingress.Index(i)
		if ing.IP != "" {
			errs = append(errs, validation.IsValidIPForLegacyField(p.Child("ip"), ing.IP, false, nil)...)
		}
		switch {
		case ing.IPMode == nil && ing.IP != "":
			errs = append(errs, field.Required(p.Child("ipMode"), "must be specified when `ip` is set"))
		case ing.IPMode != nil && ing.IP == "":
			errs = append(errs, field.Forbidden(p.Child("ipMode"), "may not be specified when `ip` is not set"))
		case ing.IPMode != nil && !slices.Contains(supportedIPModes, string(*ing.IPMode)):
			errs = append(errs, field.NotSupported(p.Child("ipMode"), ing.IPMode, supportedIPModes))
		}
		if ing.Hostname != "" {
			for _, msg := range validation.IsDNS1123Subdomain(ing.Hostname) {
				errs = append(errs, field.Invalid(p.Child("hostname"), ing.Hostname, msg))
			}
			if net.ParseIP(ing.Hostname) != nil {
				errs = append(errs, field.Invalid(p.Child("hostname"), ing.Hostname, "must be a DNS name, not an IP address"))
			}
		}
	}
	return errs
}

var supportedIPModes = []string{"Proxy", "VIP"}

// defaultIngressIPMode sets ipMode VIP on a LoadBalancer's ingress
// addresses that have none, as v1 defaulting does.
func defaultIngressIPMode(svc *corev1.Service) {
	if svc.Spec.Type != corev1.ServiceTypeLoadBalancer {
		return
	}
	for i := range svc.Status.LoadBalancer.Ingress {
		ing := &svc.Status.LoadBalancer.Ingress[i]
		if ing.IP != "" && ing.IPMode == nil {
			vip := corev1.LoadBalancerIPModeVIP
			ing.IPMode = &vip
		}
	}
}
