// Command minictl is a kubectl-compatible command-line client for miniapi
// (and any Kubernetes API server). All of its logic lives in pkg/cli.
package main

import (
	"os"

	"github.com/miniapi/miniapi/pkg/cli"
)

func main() {
	os.Exit(cli.Execute(os.Args[1:], cli.StdStreams()))
}
