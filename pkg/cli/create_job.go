package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
)

// instantiateAnnotation marks a Job made by hand from a CronJob; the
// CronJob controller leaves such Jobs out of its schedule bookkeeping.
const instantiateAnnotation = "cronjob.kubernetes.io/instantiate"

func newCreateJobCmd(f *Factory, streams genericiooptions.IOStreams) *cobra.Command {
	var g generatorFlags
	var image, from string
	cmd := &cobra.Command{
		Use:   "job NAME --image=image [--from=cronjob/name] -- [COMMAND] [args...]",
		Short: "Create a job with the specified name",
		RunE: func(cmd *cobra.Command, args []string) error {
			name, err := exactlyOneName(cmd, args)
			if err != nil {
				return err
			}
			mode, err := g.complete(streams.ErrOut)
			if err != nil {
				return err
			}
			command := args[1:]
			if (image == "") == (from == "") {
				return fmt.Errorf("either --image or --from must be specified")
			}
			if len(command) > 0 && from != "" {
				return fmt.Errorf("cannot specify --from and command")
			}
			env, err := newWriteEnv(f, streams)
			if err != nil {
				return err
			}
			return runGenerator(cmd.Context(), f, streams, &g, mode, func(ns string) (generated, error) {
				if image != "" {
					return jobGenerated(newJobObject(name, ns, image, command)), nil
				}
				cj, err := env.cronJobFrom(cmd.Context(), from)
				if err != nil {
					return generated{}, err
				}
				return jobGenerated(newJobFromCronJob(name, ns, cj)), nil
			})
		},
	}
	g.add(cmd)
	cmd.Flags().StringVar(&image, "image", "", "Image name to run.")
	cmd.Flags().StringVar(&from, "from", "", "The name of the resource to create a Job from (only CronJob is supported).")
	return cmd
}

func jobGenerated(job *batchv1.Job) generated {
	return generated{obj: job, gvk: batchv1.SchemeGroupVersion.WithKind("Job"), what: "job", sep: ": ",
		post: func(ctx context.Context, cs kubernetes.Interface, ns string, opts metav1.CreateOptions) (metav1.Object, error) {
			return cs.BatchV1().Jobs(ns).Create(ctx, job, opts)
		}}
}

// newJobObject builds the Job `kubectl create job --image` sends: one
// container named after the Job, restartPolicy Never.
func newJobObject(name, ns, image string, command []string) *batchv1.Job {
	return &batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: batchv1.JobSpec{
			Template: corev1.PodTemplateSpec{
				Spec: corev1.PodSpec{
					Containers:    []corev1.Container{{Name: name, Image: image, Command: nilIfEmpty(command)}},
					RestartPolicy: corev1.RestartPolicyNever,
				},
			},
		},
	}
}

// newJobFromCronJob builds the Job `kubectl create job --from=cronjob/X`
// sends: the CronJob's job template, marked as instantiated by hand and
// owned by the CronJob (as its controller, but without
// blockOwnerDeletion, which would need the cronjobs/finalizers right).
func newJobFromCronJob(name, ns string, cj *batchv1.CronJob) *batchv1.Job {
	annotations := map[string]string{instantiateAnnotation: "manual"}
	for k, v := range cj.Spec.JobTemplate.Annotations {
		annotations[k] = v
	}
	return &batchv1.Job{
		TypeMeta: metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{
			Name:        name,
			Namespace:   ns,
			Annotations: annotations,
			Labels:      cj.Spec.JobTemplate.Labels,
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "batch/v1",
				Kind:       "CronJob",
				Name:       cj.Name,
				UID:        cj.UID,
				Controller: ptr.To(true),
			}},
		},
		Spec: cj.Spec.JobTemplate.Spec,
	}
}

// cronJobFrom fetches the object --from names; anything but one CronJob
// is refused in kubectl's words.
func (e *writeEnv) cronJobFrom(ctx context.Context, from string) (*batchv1.CronJob, error) {
	infos, err := e.liveTargets(ctx, targetFlags{}, []string{from})
	if err != nil {
		return nil, err
	}
	if len(infos) != 1 {
		return nil, fmt.Errorf("from must be an existing cronjob")
	}
	obj := infos[0].Obj
	if obj.GroupVersionKind() != batchv1.SchemeGroupVersion.WithKind("CronJob") {
		return nil, fmt.Errorf("unknown object type %s", goTypeName(obj))
	}
	var cj batchv1.CronJob
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, &cj); err != nil {
		return nil, err
	}
	return &cj, nil
}

// goTypeName is the Go type kubectl decodes an object into, as its "%T"
// prints it: "*v1.Deployment" for a built-in kind, else
// "*unstructured.Unstructured".
func goTypeName(obj *unstructured.Unstructured) string {
	if typed, err := scheme.Scheme.New(obj.GroupVersionKind()); err == nil {
		return fmt.Sprintf("%T", typed)
	}
	return fmt.Sprintf("%T", obj)
}

// nilIfEmpty keeps an absent command absent (kubectl sends no "command"
// field when none is given).
func nilIfEmpty(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}
