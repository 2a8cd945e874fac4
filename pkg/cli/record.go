package cli

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// changeCause is what kubectl's deprecated --record writes into the
// kubernetes.io/change-cause annotation: the program's name, the
// arguments, then every flag as --name=value in the order given (rollout
// history shows it as CHANGE-CAUSE).
func changeCause(cmd *cobra.Command, argv []string) string {
	if len(argv) == 0 {
		return ""
	}
	fs := pflag.NewFlagSet(cmd.Name(), pflag.ContinueOnError)
	fs.AddFlagSet(cmd.Flags())
	fs.SetNormalizeFunc(cmd.Flags().GetNormalizeFunc())
	var flags strings.Builder
	err := fs.ParseAll(argv[1:], func(f *pflag.Flag, value string) error {
		if len(f.Annotations["classified"]) > 0 {
			value = "CLASSIFIED"
		}
		flags.WriteString(" --" + f.Name + "=" + value)
		return nil
	})
	if err != nil {
		return ""
	}
	args := ""
	if rest := fs.Args(); len(rest) > 0 {
		args = " " + strings.Join(rest, " ")
	}
	return filepath.Base(argv[0]) + args + flags.String()
}

// recordChangeCause is changeCause for this process's command line.
func recordChangeCause(cmd *cobra.Command) string { return changeCause(cmd, os.Args) }
