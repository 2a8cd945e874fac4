package cli

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/klog/v2"
)

// StdStreams are the process's stdin, stdout and stderr.
func StdStreams() genericiooptions.IOStreams {
	return genericiooptions.IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr}
}

// NewRootCmd builds the minictl command tree with kubectl's global flags.
func NewRootCmd(streams genericiooptions.IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "minictl",
		Short: "minictl controls a miniapi (or any Kubernetes) API server",
		Long: "minictl controls a miniapi (or any Kubernetes) API server.\n\n" +
			"It speaks kubectl's language: the same commands, flags, output and exit codes.",
		SilenceErrors: true,
		SilenceUsage:  true,
		RunE: func(cmd *cobra.Command, args []string) error {
			return cmd.Help()
		},
	}
	cmd.SetIn(streams.In)
	cmd.SetOut(streams.Out)
	cmd.SetErr(streams.ErrOut)
	cmd.SetFlagErrorFunc(flagError)
	cmd.SetGlobalNormalizationFunc(normalizeFlagName)

	f := NewFactory()
	f.ErrOut = streams.ErrOut
	f.AddFlags(cmd.PersistentFlags())

	cmd.AddCommand(
		newGetCmd(f, streams),
		newScaleCmd(f, streams),
		newAPIResourcesCmd(f, streams),
		newVersionCmd(f, streams),
		newClusterInfoCmd(f, streams),
		newConfigCmd(f, streams),
		newCompletionCmd(streams),
		newCreateCmd(f, streams),
		newApplyCmd(f, streams),
		newDeleteCmd(f, streams),
		newPatchCmd(f, streams),
		newLabelCmd(f, streams),
		newAnnotateCmd(f, streams),
		newEditCmd(f, streams),
		newDescribeCmd(f, streams),
		newRolloutCmd(f, streams),
		newAuthCmd(f, streams),
		newExposeCmd(f, streams),
		newRunCmd(f, streams), newAutoscaleCmd(f, streams),
		newSetCmd(f, streams), newWaitCmd(f, streams), newEventsCmd(f, streams),
		newDiffCmd(f, streams), newHistoryCmd(f, streams), newJournalCmd(f, streams), newMaintenanceCmd(f, streams),
	)

	return cmd
}

// flagError words a flag problem as kubectl does: "error: unknown flag:
// --foo" (PrintError adds "error: "), then "See 'minictl get --help' for
// usage.".
func flagError(cmd *cobra.Command, err error) error {
	return kubectlErrorf("%s\nSee '%s --help' for usage.", err.Error(), cmd.CommandPath())
}

// normalizeFlagName accepts --foo_bar for --foo-bar, as kubectl does.
func normalizeFlagName(_ *pflag.FlagSet, name string) pflag.NormalizedName {
	return pflag.NormalizedName(strings.ReplaceAll(name, "_", "-"))
}

// Execute runs minictl with args and returns the process exit status. It
// prints errors in kubectl's words and turns a panic into a one-line error.
func Execute(args []string, streams genericiooptions.IOStreams) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(streams.ErrOut, "error: internal error: %v\n", r)
			code = 1
		}
	}()
	silenceClientLogs()
	cmd := NewRootCmd(streams)
	cmd.SetArgs(args)
	err := cmd.Execute()
	if err == nil {
		return 0
	}
	return PrintError(streams.ErrOut, err)
}

// silenceClientLogs keeps client-go's klog lines (for example discovery's
// "Couldn't get current server API group list", which kubectl prints
// several times before its error) off stderr: minictl says what went wrong
// once, in PrintError.
func silenceClientLogs() {
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	_ = fs.Set("logtostderr", "false")
	_ = fs.Set("alsologtostderr", "false")
	_ = fs.Set("stderrthreshold", "FATAL")
	klog.SetOutput(io.Discard)
}
