package cli

import (
	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// fieldManagerSet is the field manager kubectl's set subcommands patch with.
const fieldManagerSet = "kubectl-set"

// newSetCmd is kubectl's `set` group; minictl has its `image` subcommand.
func newSetCmd(f *Factory, streams genericiooptions.IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "set SUBCOMMAND",
		Short: "Set specific features on objects",
		RunE:  groupRun,
	}
	cmd.AddCommand(newSetImageCmd(f, streams))
	return cmd
}
