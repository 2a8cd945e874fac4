// Command kubectl is the real kubectl, built from k8s.io/kubectl at the
// version pinned in this module, so the end-to-end tests can run it against
// miniapi exactly as a user would.
package main

import (
	"k8s.io/component-base/cli"
	"k8s.io/kubectl/pkg/cmd"
	"k8s.io/kubectl/pkg/cmd/util"
)

func main() {
	command := cmd.NewDefaultKubectlCommand()
	if err := cli.RunNoErrOutput(command); err != nil {
		util.CheckErr(err)
	}
}
