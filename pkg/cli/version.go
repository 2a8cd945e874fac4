package cli

import (
	"encoding/json"
	"fmt"
	"runtime"

	"github.com/spf13/cobra"
	apimachineryversion "k8s.io/apimachinery/pkg/version"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/yaml"
)

// clientVersion is the kubectl release whose behaviour minictl follows.
const clientVersion = "v1.37.2"

// versionInfo is what `version -o json|yaml` prints; minictl has no
// kustomize, so unlike kubectl it has no kustomizeVersion.
type versionInfo struct {
	ClientVersion *apimachineryversion.Info `json:"clientVersion,omitempty"`
	ServerVersion *apimachineryversion.Info `json:"serverVersion,omitempty"`
}

func clientVersionInfo() *apimachineryversion.Info {
	return &apimachineryversion.Info{
		Major:        "1",
		Minor:        "37",
		GitVersion:   clientVersion,
		GitCommit:    "minictl",
		GitTreeState: "clean",
		GoVersion:    runtime.Version(),
		Compiler:     runtime.Compiler,
		Platform:     runtime.GOOS + "/" + runtime.GOARCH,
	}
}

func newVersionCmd(f *Factory, streams genericiooptions.IOStreams) *cobra.Command {
	var clientOnly bool
	var output string
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the client and server version information",
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) != 0 {
				return fmt.Errorf("extra arguments: %v", args)
			}
			if output != "" && output != "yaml" && output != "json" {
				return fmt.Errorf("--output must be 'yaml' or 'json'")
			}
			info := versionInfo{ClientVersion: clientVersionInfo()}
			var serverErr error
			if !clientOnly {
				info.ServerVersion, serverErr = serverVersion(f)
			}
			if err := printVersion(streams, info, output); err != nil {
				return err
			}
			return serverErr
		},
	}
	cmd.Flags().BoolVar(&clientOnly, "client", false, "If true, shows client version only (no server required).")
	cmd.Flags().StringVarP(&output, "output", "o", "", "One of 'yaml' or 'json'.")
	return cmd
}

func serverVersion(f *Factory) (*apimachineryversion.Info, error) {
	d, err := f.Discovery()
	if err != nil {
		if clientcmd.IsEmptyConfig(err) {
			return nil, nil
		}
		return nil, err
	}
	return d.ServerVersion()
}

func printVersion(streams genericiooptions.IOStreams, info versionInfo, output string) error {
	switch output {
	case "yaml":
		b, err := yaml.Marshal(&info)
		if err != nil {
			return err
		}
		fmt.Fprintln(streams.Out, string(b))
	case "json":
		b, err := json.MarshalIndent(&info, "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintln(streams.Out, string(b))
	default:
		fmt.Fprintf(streams.Out, "Client Version: %s\n", info.ClientVersion.GitVersion)
		if info.ServerVersion != nil {
			fmt.Fprintf(streams.Out, "Server Version: %s\n", info.ServerVersion.GitVersion)
		}
	}
	return nil
}
