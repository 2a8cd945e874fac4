// Package cli is minictl: a kubectl-compatible command-line client.
//
// # Shared surface for command authors
//
// Every command is built by a constructor
//
//	func newXCmd(f *Factory, streams genericiooptions.IOStreams) *cobra.Command
//
// and registered in the marked list in root.go. A command returns its error
// from RunE; Execute prints it in kubectl's words (see errors.go) and picks
// the exit status. Commands never call os.Exit.
//
//   - Factory (factory.go): the client side of the global flags — RESTConfig,
//     Namespace, Clientset, Dynamic, Discovery, RESTMapper.
//
//   - Resolution (resolve.go): Factory.ResolveResource for one TYPE and
//     Factory.ResolveArgs for kubectl's TYPE NAME..., TYPE/NAME... and
//     TYPE1,TYPE2 forms, both through discovery.
//
//   - Errors (errors.go): ErrExit (exit 1, nothing printed), ExitError
//     (any status), PrintError and UsageErrorf.
//
//   - Printers (print_*.go): kubectl's own, from cli-runtime's printers
//     package. newObjectPrinter turns -o into a printers.ResourcePrinter
//     (name, JSON, YAML, JSONPath, or our custom-columns); server-side
//     Tables go through printers.NewTablePrinter and printers.GetNewTabWriter.
//     Decoded objects are wrapped with asObject/asList, watch events with
//     asWatchEvent; kindString gives kubectl's "deployment.apps" names.
//
//   - Requests (get_fetch.go): ResourcePath builds API paths; getRaw/doRaw
//     send a GET (or any request) and turn a Status body into an
//     *errors.StatusError with the server's message.
//
// # Deviations from kubectl
//
// minictl does not import k8s.io/kubectl, nor cli-runtime's resource and
// genericclioptions packages: their dependency trees are kubectl-sized
// (kustomize, OpenAPI validation, the whole resource builder). It uses
// cli-runtime's printers and genericiooptions, which need only
// apimachinery, client-go, liggitt/tabwriter and moby/term, and builds the
// rest (flags, resolution, custom-columns, --sort-by, the get loop) on
// client-go and apimachinery.
//
//   - get --watch survives a server restart: it resumes from the last
//     resourceVersion seen, or lists again after 410 Expired (kubectl exits).
//   - No go-template or kyaml output; no Kustomize line in version;
//     cluster-info lists no Services.
//   - client-go's klog lines are silenced: an unreachable server gives only
//     kubectl's final one-line message. -v=6 logs requests with slog.
//   - The PUT of a precondition scale sends Content-Type application/json
//     (kubectl sends none).
//   - create, expose and auth whoami accept -o json|yaml|name|jsonpath only;
//     the "unable to match a printer" message lists those. create has no
//     --save-config or --append-hash.
//   - A group command (create secret, auth) without a subcommand prints
//     cobra's help, not kubectl's, to stderr and exits 1 as kubectl does.
package cli
