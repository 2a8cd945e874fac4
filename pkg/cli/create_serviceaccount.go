package cli

import (
	"context"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/kubernetes"
)

func newCreateServiceAccountCmd(f *Factory, streams genericiooptions.IOStreams) *cobra.Command {
	var g generatorFlags
	cmd := &cobra.Command{
		Use:     "serviceaccount NAME [--dry-run=server|client|none]",
		Aliases: []string{"sa"},
		Short:   "Create a service account with the specified name",
		RunE: func(cmd *cobra.Command, args []string) error {
			name, err := exactlyOneName(cmd, args)
			if err != nil {
				return err
			}
			mode, err := g.complete(streams.ErrOut)
			if err != nil {
				return err
			}
			return runGenerator(cmd.Context(), f, streams, &g, mode, func(ns string) (generated, error) {
				sa := &corev1.ServiceAccount{
					TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ServiceAccount"},
					ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
				}
				return generated{obj: sa, gvk: corev1.SchemeGroupVersion.WithKind("ServiceAccount"), what: "serviceaccount", sep: ": ",
					post: func(ctx context.Context, cs kubernetes.Interface, ns string, opts metav1.CreateOptions) (metav1.Object, error) {
						return cs.CoreV1().ServiceAccounts(ns).Create(ctx, sa, opts)
					}}, nil
			})
		},
	}
	g.add(cmd)
	return cmd
}
