package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

const fieldManagerExpose = "kubectl-expose"

func newExposeCmd(f *Factory, streams genericiooptions.IOStreams) *cobra.Command {
	var spec exposeSpec
	var g generatorFlags
	var ff fileFlags
	cmd := &cobra.Command{
		Use:   "expose (-f FILENAME | TYPE NAME) [--port=port] [--protocol=TCP|UDP|SCTP] [--target-port=number-or-name] [--name=name] [--external-ip=external-ip-of-service] [--type=type]",
		Short: "Take a replication controller, service, deployment or pod and expose it as a new Kubernetes service",
		RunE: func(cmd *cobra.Command, args []string) error {
			mode, err := g.complete(streams.ErrOut)
			if err != nil {
				return err
			}
			if len(args) == 0 && len(ff.Filenames) == 0 {
				return errNoResources
			}
			env, err := newWriteEnv(f, streams)
			if err != nil {
				return err
			}
			return env.expose(cmd.Context(), &spec, &g, mode, ff, args)
		},
	}
	fl := cmd.Flags()
	g.addOutput(cmd)
	g.addDryRun(cmd)
	g.addSaveConfig(cmd)
	g.addFieldManager(cmd, fieldManagerExpose)
	fl.StringVar(&spec.Protocol, "protocol", "", "The network protocol for the service to be created. Default is 'TCP'.")
	fl.StringVar(&spec.Port, "port", "", "The port that the service should serve on. Copied from the resource being exposed, if unspecified")
	fl.StringVar(&spec.Type, "type", "", "Type for this service: ClusterIP, NodePort, LoadBalancer, or ExternalName. Default is 'ClusterIP'.")
	fl.StringVar(&spec.LoadBalancerIP, "load-balancer-ip", "", "IP to assign to the LoadBalancer. If empty, an ephemeral IP will be created and used (cloud-provider specific).")
	fl.StringVar(&spec.Selector, "selector", "", "A label selector to use for this service. Only equality-based selector requirements are supported. If empty (the default) infer the selector from the resource being exposed.")
	fl.StringVarP(&spec.Labels, "labels", "l", "", "Labels to apply to the service created by this call.")
	fl.StringVar(&spec.TargetPort, "target-port", "", "Name or number for the port on the container that the service should direct traffic to. Optional.")
	fl.StringVar(&spec.ExternalIP, "external-ip", "", "Additional external IP address (not managed by Kubernetes) to accept for the service.")
	fl.StringVar(&spec.Name, "name", "", "The name for the newly created object.")
	fl.StringVar(&spec.SessionAffinity, "session-affinity", "", "If non-empty, set the session affinity for the service to this; legal values: 'None', 'ClientIP'")
	fl.StringVar(&spec.ClusterIP, "cluster-ip", "", "ClusterIP to be assigned to the service. Leave empty to auto-allocate, or set to 'None' to create a headless service.")
	ff.add(cmd, "identifying the resource to expose a service")
	return cmd
}

// expose makes a Service for each selected object. Like kubectl, what one
// object filled in (selector, port, labels) stays for the next, and a
// failure does not stop the others.
func (e *writeEnv) expose(ctx context.Context, spec *exposeSpec, g *generatorFlags, mode dryRunMode, ff fileFlags, args []string) error {
	infos, err := e.liveTargets(ctx, targetFlags{files: ff}, args)
	var errs []error
	if err != nil {
		if len(infos) == 0 {
			return err
		}
		errs = append(errs, err)
	}
	for _, info := range infos {
		if err := e.exposeOne(ctx, spec, g, mode, info); err != nil {
			errs = append(errs, err)
		}
	}
	return utilerrors.NewAggregate(errs)
}

func (e *writeEnv) exposeOne(ctx context.Context, spec *exposeSpec, g *generatorFlags, mode dryRunMode, info *objectInfo) error {
	gk := info.Mapping.GroupVersionKind.GroupKind()
	switch gk.String() {
	case "Pod", "Service", "ReplicationController", "Deployment.apps", "ReplicaSet.apps":
	default:
		return fmt.Errorf("cannot expose a %s", gk)
	}
	target, err := exposeTargetOf(gk.Kind, info.Obj.Object)
	if err != nil {
		return err
	}
	name := spec.Name
	if name == "" {
		name = info.Name
		if len(name) > validation.DNS1035LabelMaxLength {
			name = name[:validation.DNS1035LabelMaxLength]
		}
	}
	if spec.Selector == "" {
		if target.SelectErr != nil {
			return fmt.Errorf("couldn't retrieve selectors via --selector flag or introspection: %v", target.SelectErr)
		}
		spec.Selector = formatLabelMap(target.Selector)
	}
	spec.ObjectPorts, spec.ObjectProtocols = target.ports()
	if spec.Port == "" && len(spec.ObjectPorts) == 0 && spec.ClusterIP != corev1.ClusterIPNone {
		return fmt.Errorf("couldn't find port via --port flag or introspection")
	}
	if spec.Labels == "" {
		spec.Labels = formatLabelMap(target.Labels)
	}
	one := *spec
	one.Name = name
	svc, err := one.buildService()
	if err != nil {
		return err
	}
	gvk := corev1.SchemeGroupVersion.WithKind("Service")
	svc.SetGroupVersionKind(gvk)
	if mode == dryRunClient {
		if e.target.Enforce {
			svc.Namespace = e.target.Namespace
		}
		return g.printDone(e.streams.Out, "exposed", mode, gvk, svc)
	}
	if err := saveConfig(g.SaveConfig, svc); err != nil {
		return err
	}
	cs, err := e.f.Clientset()
	if err != nil {
		return err
	}
	opts := metav1.CreateOptions{FieldManager: g.FieldManager}
	if mode == dryRunServer {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	created, err := cs.CoreV1().Services(e.target.Namespace).Create(ctx, svc, opts)
	if err != nil {
		return err
	}
	created.SetGroupVersionKind(gvk)
	return g.printDone(e.streams.Out, "exposed", mode, gvk, created)
}
