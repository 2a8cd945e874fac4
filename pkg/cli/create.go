package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	utilrand "k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// Field managers kubectl names in its write requests; the server records
// them in managedFields, so using the same ones keeps ownership identical.
const (
	fieldManagerCreate = "kubectl-create"
	fieldValidation    = "Strict"
)

// fileFlags are kubectl's -f/--filename and -R/--recursive.
type fileFlags struct {
	Filenames []string
	Recursive bool
	// Validate is --validate (create and apply only): how the server should
	// treat unknown or duplicate fields.
	Validate string
}

// addValidate adds kubectl's --validate flag.
func (ff *fileFlags) addValidate(cmd *cobra.Command) {
	cmd.Flags().StringVar(&ff.Validate, "validate", "strict", `Must be one of: strict (or true), warn, ignore (or false).`)
	cmd.Flags().Lookup("validate").NoOptDefVal = "strict"
}

// fieldValidation maps --validate to the fieldValidation query parameter.
func (ff *fileFlags) fieldValidation() (string, error) {
	switch strings.ToLower(ff.Validate) {
	case "", "strict", "true":
		return "Strict", nil
	case "warn":
		return "Warn", nil
	case "ignore", "false":
		return "Ignore", nil
	}
	return "", fmt.Errorf("invalid - validate option %q; must be one of: strict (or true), warn, ignore (or false)", ff.Validate)
}

func (ff *fileFlags) add(cmd *cobra.Command, what string) {
	cmd.Flags().StringSliceVarP(&ff.Filenames, "filename", "f", nil, "Filename, directory, or URL to files "+what+".")
	cmd.Flags().BoolVarP(&ff.Recursive, "recursive", "R", false, "Process the directory used in -f, --filename recursively.")
}

// writeEnv is what every write command needs from the factory.
type writeEnv struct {
	f       *Factory
	streams genericiooptions.IOStreams
	target  manifestTarget
}

func newWriteEnv(f *Factory, streams genericiooptions.IOStreams) (*writeEnv, error) {
	ns, explicit, err := f.Namespace()
	if err != nil {
		return nil, err
	}
	return &writeEnv{f: f, streams: streams, target: manifestTarget{Namespace: ns, Enforce: explicit}}, nil
}

// readInfos reads the -f sources and maps them; a missing path is returned
// as err, per-object problems as errs.
func (e *writeEnv) readInfos(ff fileFlags) (infos []*objectInfo, errs []error, err error) {
	set, err := readManifests(ff.Filenames, ff.Recursive, e.streams.In)
	if err != nil {
		return nil, nil, err
	}
	errs = set.Errs
	if len(set.Docs) == 0 {
		return nil, readErrors(errs), nil
	}
	mapper, err := e.f.RESTMapper()
	if err != nil {
		return nil, nil, err
	}
	infos, errs = mapManifests(mapper, set, e.target)
	return infos, readErrors(errs), nil
}

// readErrors groups the problems found while reading manifests as kubectl's
// builder does: several of them form one "[a, b]" entry ahead of the
// errors of the requests that follow.
func readErrors(errs []error) []error {
	if len(errs) > 1 {
		return []error{utilerrors.NewAggregate(errs)}
	}
	return errs
}

func newCreateCmd(f *Factory, streams genericiooptions.IOStreams) *cobra.Command {
	var ff fileFlags
	cmd := &cobra.Command{
		Use:   "create -f FILENAME",
		Short: "Create a resource from a file or from stdin",
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(ff.Filenames) == 0 {
				return fmt.Errorf("must specify one of -f and -k")
			}
			env, err := newWriteEnv(f, streams)
			if err != nil {
				return err
			}
			return env.createFromFiles(cmd.Context(), ff)
		},
	}
	ff.add(cmd, "to use to create the resource")
	ff.addValidate(cmd)
	cmd.AddCommand(newCreateDeploymentCmd(f, streams), newCreateNamespaceCmd(f, streams),
		newCreateConfigMapCmd(f, streams), newCreateSecretCmd(f, streams), newCreateServiceAccountCmd(f, streams))
	cmd.AddCommand(newCreateJobCmd(f, streams), newCreateCronJobCmd(f, streams))
	return cmd
}

// createFromFiles POSTs every object, printing "KIND/NAME created" for each
// and reporting all failures at the end, as kubectl does.
func (e *writeEnv) createFromFiles(ctx context.Context, ff fileFlags) error {
	validation, err := ff.fieldValidation()
	if err != nil {
		return err
	}
	infos, errs, err := e.readInfos(ff)
	if err != nil {
		return err
	}
	dyn, err := e.f.Dynamic()
	if err != nil {
		return err
	}
	for _, info := range infos {
		opts := metav1.CreateOptions{FieldManager: fieldManagerCreate, FieldValidation: validation}
		created, err := info.client(dyn).Create(ctx, info.Obj, opts)
		if err != nil {
			errs = append(errs, addSourceToErr("creating", info.Source, err))
			continue
		}
		info.Name = created.GetName()
		fmt.Fprintf(e.streams.Out, "%s created\n", info.kindName())
	}
	if len(infos) == 0 && len(errs) == 0 {
		return fmt.Errorf("no objects passed to create")
	}
	return utilerrors.NewAggregate(errs)
}

func newCreateDeploymentCmd(f *Factory, streams genericiooptions.IOStreams) *cobra.Command {
	var images []string
	var replicas int32
	var port int32
	cmd := &cobra.Command{
		Use:     "deployment NAME --image=image -- [COMMAND] [args...]",
		Aliases: []string{"deploy"},
		Short:   "Create a deployment with the specified name",
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return UsageErrorf(cmd, "NAME is required")
			}
			env, err := newWriteEnv(f, streams)
			if err != nil {
				return err
			}
			command := args[1:]
			if len(images) > 1 && len(command) > 0 {
				return fmt.Errorf("cannot specify multiple --image options and command")
			}
			d := newDeploymentObject(args[0], images, command, replicas, port)
			cs, err := f.Clientset()
			if err != nil {
				return err
			}
			created, err := cs.AppsV1().Deployments(env.target.Namespace).Create(cmd.Context(), d,
				metav1.CreateOptions{FieldManager: fieldManagerCreate, FieldValidation: fieldValidation})
			if err != nil {
				return fmt.Errorf("failed to create deployment: %v", err)
			}
			fmt.Fprintf(streams.Out, "deployment.apps/%s created\n", created.Name)
			return nil
		},
	}
	cmd.Flags().StringSliceVar(&images, "image", nil, "Image names to run. A deployment can have multiple images set for multi-container pod.")
	cmd.Flags().Int32VarP(&replicas, "replicas", "r", 1, "Number of replicas to create. Default is 1.")
	cmd.Flags().Int32Var(&port, "port", -1, "The containerPort that this deployment exposes.")
	_ = cmd.MarkFlagRequired("image")
	return cmd
}

// newDeploymentObject builds the Deployment `kubectl create deployment`
// sends: label app=NAME on the object, selector and template, one container
// per image named after the image's base name.
func newDeploymentObject(name string, images, command []string, replicas, port int32) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	d := &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{}},
			},
		},
	}
	for _, image := range images {
		d.Spec.Template.Spec.Containers = append(d.Spec.Template.Spec.Containers,
			corev1.Container{Name: containerNameForImage(image), Image: image, Command: command})
	}
	if port >= 0 && len(d.Spec.Template.Spec.Containers) > 0 {
		d.Spec.Template.Spec.Containers[0].Ports = []corev1.ContainerPort{{ContainerPort: port}}
	}
	return d
}

// containerNameForImage keeps the image's last path part without tag or
// digest; names with "." or "_" are made DNS-safe and get a random suffix.
func containerNameForImage(image string) string {
	parts := strings.Split(image, "/")
	name := parts[len(parts)-1]
	name, _, _ = strings.Cut(name, ":")
	name, _, _ = strings.Cut(name, "@")
	if strings.ContainsAny(name, "_.") {
		name = strings.NewReplacer("_", "-", ".", "-").Replace(name)
		name = name + "-" + utilrand.String(5)
	}
	return name
}

func newCreateNamespaceCmd(f *Factory, streams genericiooptions.IOStreams) *cobra.Command {
	return &cobra.Command{
		Use:     "namespace NAME",
		Aliases: []string{"ns"},
		Short:   "Create a namespace with the specified name",
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return UsageErrorf(cmd, "NAME is required")
			}
			cs, err := f.Clientset()
			if err != nil {
				return err
			}
			ns := &corev1.Namespace{
				TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
				ObjectMeta: metav1.ObjectMeta{Name: args[0]},
			}
			created, err := cs.CoreV1().Namespaces().Create(cmd.Context(), ns,
				metav1.CreateOptions{FieldManager: fieldManagerCreate, FieldValidation: fieldValidation})
			if err != nil {
				return err
			}
			fmt.Fprintf(streams.Out, "namespace/%s created\n", created.Name)
			return nil
		},
	}
}
