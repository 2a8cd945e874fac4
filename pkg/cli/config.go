package cli

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/cli-runtime/pkg/printers"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	clientcmdlatest "k8s.io/client-go/tools/clientcmd/api/latest"
)

// newConfigCmd is `config view|use-context|get-contexts|current-context`,
// reading and writing kubeconfig files through clientcmd exactly where
// kubectl would (--kubeconfig, else $KUBECONFIG, else ~/.kube/config).
func newConfigCmd(f *Factory, streams genericiooptions.IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config SUBCOMMAND",
		Short: "Modify kubeconfig files",
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return UsageErrorf(cmd, "unknown command %q", strings.Join(args, " "))
			}
			return cmd.Help()
		},
	}
	cmd.AddCommand(newConfigViewCmd(f, streams))
	cmd.AddCommand(newConfigUseContextCmd(f, streams))
	cmd.AddCommand(newConfigGetContextsCmd(f, streams))
	cmd.AddCommand(newConfigCurrentContextCmd(f, streams))
	return cmd
}

// configAccess is where kubeconfig files are read from and written to.
func (f *Factory) configAccess() clientcmd.ConfigAccess {
	po := clientcmd.NewDefaultPathOptions()
	po.LoadingRules.ExplicitPath = f.Kubeconfig
	return po
}

func newConfigViewCmd(f *Factory, streams genericiooptions.IOStreams) *cobra.Command {
	var minify, flatten, raw bool
	output := "yaml"
	cmd := &cobra.Command{
		Use:   "view",
		Short: "Display merged kubeconfig settings or a specified kubeconfig file",
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) != 0 {
				return UsageErrorf(cmd, "unexpected arguments: %v", args)
			}
			p, err := newObjectPrinter(output, false)
			if err != nil {
				return err
			}
			config, err := f.configAccess().GetStartingConfig()
			if err != nil {
				return err
			}
			if minify {
				if f.Overrides.CurrentContext != "" {
					config.CurrentContext = f.Overrides.CurrentContext
				}
				if err := clientcmdapi.MinifyConfig(config); err != nil {
					return err
				}
			}
			if flatten {
				if err := clientcmdapi.FlattenConfig(config); err != nil {
					return err
				}
			} else if !raw {
				if err := clientcmdapi.RedactSecrets(config); err != nil {
					return err
				}
				clientcmdapi.ShortenConfig(config)
			}
			// kubectl prints the typed v1 Config (JSON in field order).
			v1, err := clientcmdlatest.Scheme.ConvertToVersion(config, clientcmdlatest.ExternalVersion)
			if err != nil {
				return err
			}
			return p.PrintObj(v1, streams.Out)
		},
	}
	cmd.Flags().BoolVar(&minify, "minify", false, "Remove all information not used by current-context from the output")
	cmd.Flags().BoolVar(&flatten, "flatten", false, "Flatten the resulting kubeconfig file into self-contained output (useful for creating portable kubeconfig files)")
	cmd.Flags().BoolVar(&raw, "raw", false, "Display raw byte data and sensitive data")
	cmd.Flags().StringVarP(&output, "output", "o", "yaml", "Output format. One of: (json, yaml, jsonpath, jsonpath-file).")
	return cmd
}

func newConfigUseContextCmd(f *Factory, streams genericiooptions.IOStreams) *cobra.Command {
	return &cobra.Command{
		Use:     "use-context CONTEXT_NAME",
		Aliases: []string{"use"},
		Short:   "Set the current-context in a kubeconfig file",
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return UsageErrorf(cmd, "Unexpected args: %v", args)
			}
			name := args[0]
			if name == "" {
				return errors.New("empty context names are not allowed")
			}
			access := f.configAccess()
			config, err := access.GetStartingConfig()
			if err != nil {
				return err
			}
			if _, ok := config.Contexts[name]; !ok {
				return fmt.Errorf("no context exists with the name: %q", name)
			}
			config.CurrentContext = name
			if err := clientcmd.ModifyConfig(access, *config, true); err != nil {
				return err
			}
			fmt.Fprintf(streams.Out, "Switched to context %q.\n", name)
			return nil
		},
	}
}

func newConfigCurrentContextCmd(f *Factory, streams genericiooptions.IOStreams) *cobra.Command {
	return &cobra.Command{
		Use:   "current-context",
		Short: "Display the current-context",
		RunE: func(cmd *cobra.Command, args []string) error {
			config, err := f.configAccess().GetStartingConfig()
			if err != nil {
				return err
			}
			if config.CurrentContext == "" {
				return fmt.Errorf("current-context is not set")
			}
			fmt.Fprintf(streams.Out, "%s\n", config.CurrentContext)
			return nil
		},
	}
}

func newConfigGetContextsCmd(f *Factory, streams genericiooptions.IOStreams) *cobra.Command {
	var output string
	var noHeaders bool
	cmd := &cobra.Command{
		Use:   "get-contexts [(-o|--output=)name)]",
		Short: "Describe one or many contexts",
		RunE: func(cmd *cobra.Command, args []string) error {
			if output != "" && output != "name" {
				return fmt.Errorf("--output %v is not available in kubectl config get-contexts; resetting to default output format", output)
			}
			config, err := f.configAccess().GetStartingConfig()
			if err != nil {
				return err
			}
			return printContexts(streams, config, args, output == "name", !noHeaders && output != "name")
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "", "Output format. One of: (name).")
	cmd.Flags().BoolVar(&noHeaders, "no-headers", false, "When using the default or custom-column output format, don't print headers (default print headers).")
	return cmd
}

func printContexts(streams genericiooptions.IOStreams, config *clientcmdapi.Config, names []string, nameOnly, headers bool) error {
	w := printers.GetNewTabWriter(streams.Out)
	defer w.Flush()
	var errs []error
	var toPrint []string
	if len(names) == 0 {
		for name := range config.Contexts {
			toPrint = append(toPrint, name)
		}
	}
	for _, name := range names {
		if _, ok := config.Contexts[name]; ok {
			toPrint = append(toPrint, name)
		} else {
			errs = append(errs, fmt.Errorf("context %v not found", name))
		}
	}
	if headers {
		fmt.Fprintln(w, "CURRENT\tNAME\tCLUSTER\tAUTHINFO\tNAMESPACE")
	}
	sort.Strings(toPrint)
	for _, name := range toPrint {
		if nameOnly {
			fmt.Fprintln(w, name)
			continue
		}
		c := config.Contexts[name]
		prefix := " "
		if config.CurrentContext == name {
			prefix = "*"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", prefix, name, c.Cluster, c.AuthInfo, c.Namespace)
	}
	return utilerrors.NewAggregate(errs)
}
