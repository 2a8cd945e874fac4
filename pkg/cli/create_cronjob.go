package cli

import (
	"context"

	"github.com/spf13/cobra"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/kubernetes"
)

func newCreateCronJobCmd(f *Factory, streams genericiooptions.IOStreams) *cobra.Command {
	var g generatorFlags
	var image, schedule, restart string
	cmd := &cobra.Command{
		Use:     "cronjob NAME --image=image --schedule='0/5 * * * ?' -- [COMMAND] [args...]",
		Aliases: []string{"cj"},
		Short:   "Create a cron job with the specified name",
		RunE: func(cmd *cobra.Command, args []string) error {
			name, err := exactlyOneName(cmd, args)
			if err != nil {
				return err
			}
			mode, err := g.complete(streams.ErrOut)
			if err != nil {
				return err
			}
			spec := cronJobSpec{name: name, image: image, schedule: schedule, restart: restart, command: args[1:]}
			return runGenerator(cmd.Context(), f, streams, &g, mode, func(ns string) (generated, error) {
				cj := spec.object(ns)
				return generated{obj: cj, gvk: batchv1.SchemeGroupVersion.WithKind("CronJob"), what: "cronjob", sep: ": ",
					post: func(ctx context.Context, cs kubernetes.Interface, ns string, opts metav1.CreateOptions) (metav1.Object, error) {
						return cs.BatchV1().CronJobs(ns).Create(ctx, cj, opts)
					}}, nil
			})
		},
	}
	g.add(cmd)
	cmd.Flags().StringVar(&image, "image", "", "Image name to run.")
	_ = cmd.MarkFlagRequired("image")
	cmd.Flags().StringVar(&schedule, "schedule", "", "A schedule in the Cron format the job should be run with.")
	_ = cmd.MarkFlagRequired("schedule")
	cmd.Flags().StringVar(&restart, "restart", "", "job's restart policy. supported values: OnFailure, Never")
	return cmd
}

// cronJobSpec is what `create cronjob` reads from its arguments and flags.
type cronJobSpec struct {
	name, image, schedule, restart string
	command                        []string
}

// object builds the CronJob kubectl sends: the job template carries the
// CronJob's name, one container named after it, and restartPolicy
// OnFailure unless --restart says otherwise (the server judges the value).
func (s cronJobSpec) object(ns string) *batchv1.CronJob {
	restart := s.restart
	if restart == "" {
		restart = string(corev1.RestartPolicyOnFailure)
	}
	return &batchv1.CronJob{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "CronJob"},
		ObjectMeta: metav1.ObjectMeta{Name: s.name, Namespace: ns},
		Spec: batchv1.CronJobSpec{
			Schedule: s.schedule,
			JobTemplate: batchv1.JobTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Name: s.name},
				Spec: batchv1.JobSpec{
					Template: corev1.PodTemplateSpec{
						Spec: corev1.PodSpec{
							Containers:    []corev1.Container{{Name: s.name, Image: s.image, Command: nilIfEmpty(s.command)}},
							RestartPolicy: corev1.RestartPolicy(restart),
						},
					},
				},
			},
		},
	}
}
