package cli

import (
	"fmt"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// newClusterInfoCmd prints where the control plane runs. miniapi serves
// no Services, so unlike kubectl there are no service lines; the hint
// names a command minictl has.
func newClusterInfoCmd(f *Factory, streams genericiooptions.IOStreams) *cobra.Command {
	return &cobra.Command{
		Use:   "cluster-info",
		Short: "Display cluster information",
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) != 0 {
				return UsageErrorf(cmd, "unexpected arguments: %v", args)
			}
			config, err := f.RESTConfig()
			if err != nil {
				return err
			}
			d, err := f.Discovery()
			if err != nil {
				return err
			}
			if _, err := d.ServerVersion(); err != nil {
				return err
			}
			fmt.Fprintf(streams.Out, "Kubernetes control plane is running at %s\n", config.Host)
			fmt.Fprint(streams.Out, "\nTo further debug and diagnose cluster problems, use 'minictl get events -A'.\n")
			return nil
		},
	}
}
