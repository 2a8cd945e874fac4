package cli

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/distribution/reference"
	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

const fieldManagerRun = "kubectl-run"

// runFlags are `run`'s flags as the user gave them.
type runFlags struct {
	g                                           generatorFlags
	image, port, labels, restart, pullPolicy    string
	envs, annotations                           []string
	command, expose, privileged                 bool
	interactive, tty, attach, remove, leaveOpen bool
	timeout                                     time.Duration
}

// runSpec is what `run` builds its Pod (and Service) from, once read.
type runSpec struct {
	name        string
	args        []string
	image, port string
	labels      map[string]string // only what --labels gave
	annotations map[string]string
	envs        []corev1.EnvVar
	restart     corev1.RestartPolicy
	pull        corev1.PullPolicy
	command     bool
	privileged  bool
}

func newRunCmd(f *Factory, streams genericiooptions.IOStreams) *cobra.Command {
	var o runFlags
	cmd := &cobra.Command{
		Use:   `run NAME --image=image [--env="key=value"] [--port=port] [--dry-run=server|client] [--command] -- [COMMAND] [args...]`,
		Short: "Run a particular image on the cluster",
		RunE: func(cmd *cobra.Command, args []string) error {
			spec, mode, err := o.complete(cmd, streams)
			if err != nil {
				return err
			}
			if err := o.validate(args, mode); err != nil {
				return err
			}
			if o.attach {
				return fmt.Errorf("--attach, -i/--stdin and -t/--tty are not supported: miniapi's simulated pods run no processes to attach to")
			}
			spec.name, spec.args = args[0], args[1:]
			env, err := newWriteEnv(f, streams)
			if err != nil {
				return err
			}
			return env.run(cmd.Context(), &o.g, mode, spec, o.expose)
		},
	}
	o.g.addOutput(cmd)
	o.g.addSaveConfig(cmd)
	o.g.addDryRun(cmd)
	o.g.addFieldManager(cmd, fieldManagerRun)
	fl := cmd.Flags()
	fl.StringArrayVar(&o.annotations, "annotations", nil, "Annotations to apply to the pod.")
	fl.StringVar(&o.image, "image", "", "The image for the container to run.")
	_ = cmd.MarkFlagRequired("image")
	fl.StringVar(&o.pullPolicy, "image-pull-policy", "", "The image pull policy for the container.  If left empty, this value will not be specified by the client and defaulted by the server.")
	fl.BoolVar(&o.remove, "rm", false, "If true, delete the pod after it exits.  Only valid when attaching to the container, e.g. with '--attach' or with '-i/--stdin'.")
	fl.StringArrayVar(&o.envs, "env", nil, "Environment variables to set in the container.")
	fl.StringVar(&o.port, "port", "", "The port that this container exposes.")
	fl.StringVarP(&o.labels, "labels", "l", "", "Comma separated labels to apply to the pod. Will override previous values.")
	fl.BoolVarP(&o.interactive, "stdin", "i", false, "Keep stdin open on the container in the pod, even if nothing is attached.")
	fl.BoolVarP(&o.tty, "tty", "t", false, "Allocate a TTY for the container in the pod.")
	fl.BoolVar(&o.attach, "attach", false, "If true, wait for the Pod to start running, and then attach to the Pod as if 'kubectl attach ...' were called.")
	fl.BoolVar(&o.leaveOpen, "leave-stdin-open", false, "If the pod is started in interactive mode or with stdin, leave stdin open after the first attach completes.")
	fl.StringVar(&o.restart, "restart", "Always", "The restart policy for this Pod.  Legal values [Always, OnFailure, Never].")
	fl.BoolVar(&o.command, "command", false, "If true and extra arguments are present, use them as the 'command' field in the container, rather than the 'args' field which is the default.")
	fl.BoolVar(&o.expose, "expose", false, "If true, create a ClusterIP service associated with the pod.  Requires `--port`.")
	fl.BoolVar(&o.privileged, "privileged", false, "If true, run the container in privileged mode.")
	fl.DurationVar(&o.timeout, "pod-running-timeout", time.Minute, "The length of time (like 5s, 2m, or 3h, higher than zero) to wait until at least one pod is running")
	return cmd
}

// complete reads the flags in kubectl's order, each with its message.
func (o *runFlags) complete(cmd *cobra.Command, streams genericiooptions.IOStreams) (runSpec, dryRunMode, error) {
	spec := runSpec{image: o.image, port: o.port, command: o.command, privileged: o.privileged}
	var err error
	if spec.annotations, err = parseRunAnnotations(o.annotations); err != nil {
		return spec, 0, err
	}
	if spec.labels, err = parseRunLabels(o.labels); err != nil {
		return spec, 0, err
	}
	if spec.envs, err = parseRunEnvs(o.envs); err != nil {
		return spec, 0, err
	}
	if spec.restart, err = runRestartPolicy(o.restart, o.interactive); err != nil {
		return spec, 0, err
	}
	if spec.pull, err = runPullPolicy(o.pullPolicy); err != nil {
		return spec, 0, err
	}
	if o.timeout <= 0 {
		return spec, 0, fmt.Errorf("--pod-running-timeout must be higher than zero")
	}
	if !cmd.Flags().Changed("attach") && o.interactive {
		o.attach = true
	}
	mode, err := o.g.dryRun(streams.ErrOut)
	if err != nil {
		return spec, mode, err
	}
	return spec, mode, o.g.checkOutput()
}

// validate is kubectl's check of the arguments and flag combinations.
// kubectl 1.37 takes `run -- NAME ARGS...` as NAME and its arguments
// (its check for a NAME before "--" does not fire), and so does minictl.
func (o *runFlags) validate(args []string, mode dryRunMode) error {
	if len(args) == 0 {
		return fmt.Errorf("NAME is required for run")
	}
	if o.image == "" {
		return fmt.Errorf("--image is required")
	}
	if !reference.ReferenceRegexp.MatchString(o.image) {
		return fmt.Errorf("invalid image name %q: %w", o.image, reference.ErrReferenceInvalidFormat)
	}
	if o.tty && !o.interactive {
		return fmt.Errorf("-i/--stdin is required for containers with -t/--tty=true")
	}
	if o.expose && o.port == "" {
		return fmt.Errorf("--port must be set when exposing a service")
	}
	if o.port != "" {
		if _, err := strconv.Atoi(o.port); err != nil {
			return fmt.Errorf("--port must be a number")
		}
	}
	if !o.attach && o.remove {
		return fmt.Errorf("--rm should only be used for attached containers")
	}
	if o.attach && mode != dryRunNone {
		return fmt.Errorf("--dry-run=[server|client] can't be used with attached containers options (--attach, --stdin, or --tty)")
	}
	return nil
}

// run creates the Pod and, with --expose, its Service, then prints both.
// As in kubectl, a failed Service does not hide the Pod that was made.
func (e *writeEnv) run(ctx context.Context, g *generatorFlags, mode dryRunMode, spec runSpec, expose bool) error {
	selector := spec.labels
	if len(selector) == 0 {
		selector = map[string]string{"run": spec.name}
	}
	pod, err := e.createRunObject(ctx, g, mode, spec.pod(selector))
	if err != nil {
		return err
	}
	created := []metav1.Object{pod}
	var errs []error
	if expose {
		svc, err := e.createRunObject(ctx, g, mode, spec.service(selector))
		if err != nil {
			errs = append(errs, err)
		} else {
			created = append(created, svc)
		}
	}
	for _, obj := range created {
		gvk := corev1.SchemeGroupVersion.WithKind("Pod")
		if _, ok := obj.(*corev1.Service); ok {
			gvk = corev1.SchemeGroupVersion.WithKind("Service")
		}
		if err := g.printCreated(e.streams.Out, mode, gvk, obj); err != nil {
			errs = append(errs, err)
		}
	}
	return utilerrors.NewAggregate(errs)
}

// createRunObject sends a Pod or Service (unless --dry-run=client, where
// it only gets the namespace an explicit -n gives). Unlike create, run
// asks for no field validation, and saves --save-config only for what it
// sends.
func (e *writeEnv) createRunObject(ctx context.Context, g *generatorFlags, mode dryRunMode, obj metav1.Object) (metav1.Object, error) {
	if mode == dryRunClient {
		if e.target.Enforce {
			obj.SetNamespace(e.target.Namespace)
		}
		return obj, nil
	}
	if err := saveConfig(g.SaveConfig, obj); err != nil {
		return nil, err
	}
	cs, err := e.f.Clientset()
	if err != nil {
		return nil, err
	}
	opts := metav1.CreateOptions{FieldManager: g.FieldManager}
	if mode == dryRunServer {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	ns := e.target.Namespace
	switch o := obj.(type) {
	case *corev1.Pod:
		return cs.CoreV1().Pods(ns).Create(ctx, o, opts)
	case *corev1.Service:
		return cs.CoreV1().Services(ns).Create(ctx, o, opts)
	}
	return nil, fmt.Errorf("run cannot create a %T", obj)
}

// pod is the Pod kubectl run builds: one container named after the pod;
// arguments become args, or the command with --command.
func (s runSpec) pod(labels map[string]string) *corev1.Pod {
	c := corev1.Container{Name: s.name, Image: s.image, Env: s.envs, ImagePullPolicy: s.pull}
	if s.privileged {
		c.SecurityContext = &corev1.SecurityContext{Privileged: &s.privileged}
	}
	if len(s.args) > 0 {
		if s.command {
			c.Command = s.args
		} else {
			c.Args = s.args
		}
	}
	if s.port != "" {
		port, _ := strconv.Atoi(s.port) // validate checked it
		c.Ports = []corev1.ContainerPort{{ContainerPort: int32(port)}}
	}
	return &corev1.Pod{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: s.name, Labels: labels, Annotations: s.annotations},
		Spec: corev1.PodSpec{
			Containers:    []corev1.Container{c},
			DNSPolicy:     corev1.DNSClusterFirst,
			RestartPolicy: s.restart,
		},
	}
}

// service is the ClusterIP Service of --expose: it selects the pod's
// labels and carries only the labels --labels gave.
func (s runSpec) service(selector map[string]string) *corev1.Service {
	port, _ := strconv.Atoi(s.port)
	return &corev1.Service{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: metav1.ObjectMeta{Name: s.name, Labels: s.labels},
		Spec: corev1.ServiceSpec{
			Selector: selector,
			Ports:    []corev1.ServicePort{{Port: int32(port), Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromInt32(int32(port))}},
		},
	}
}
