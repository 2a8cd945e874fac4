package cli

import (
	"context"
	"fmt"
	"io"
	"strconv"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/cli-runtime/pkg/printers"
	"k8s.io/client-go/kubernetes"
)

// dryRunMode is kubectl's --dry-run strategy.
type dryRunMode int

const (
	dryRunNone dryRunMode = iota
	dryRunClient
	dryRunServer
)

// generatorFlags are the flags kubectl's generator commands (create KIND
// NAME, run, expose, autoscale) share: -o and --show-managed-fields, --dry-run,
// --save-config, --field-manager and, for create, --validate. Each command
// adds the blocks kubectl gives it.
type generatorFlags struct {
	Output            string
	ShowManagedFields bool
	DryRun            string
	SaveConfig        bool
	FieldManager      string
	Validate          fileFlags
	// printer prints -o output, one for the whole command: YAML documents
	// after the first start with "---", as kubectl's do.
	printer printers.ResourcePrinter
}

// createOutputFormats are the -o values a create subcommand accepts (kubectl
// also has go-template, template and kyaml, which minictl lacks).
var createOutputFormats = []string{"json", "jsonpath", "jsonpath-as-json", "jsonpath-file", "name", "yaml"}

// add adds the flags of every `create KIND NAME` subcommand.
func (g *generatorFlags) add(cmd *cobra.Command) {
	g.addOutput(cmd)
	g.addSaveConfig(cmd)
	g.Validate.addValidate(cmd)
	g.addDryRun(cmd)
	g.addFieldManager(cmd, fieldManagerCreate)
}

// addOutput adds -o and --show-managed-fields (kubectl's print flags).
func (g *generatorFlags) addOutput(cmd *cobra.Command) {
	cmd.Flags().StringVarP(&g.Output, "output", "o", "", "Output format. One of: (json, yaml, name, jsonpath, jsonpath-as-json, jsonpath-file).")
	cmd.Flags().BoolVar(&g.ShowManagedFields, "show-managed-fields", false, "If true, keep the managedFields when printing objects in JSON or YAML format.")
}

func (g *generatorFlags) addDryRun(cmd *cobra.Command) {
	cmd.Flags().StringVar(&g.DryRun, "dry-run", "none", `Must be "none", "server", or "client". If client strategy, only print the object that would be sent, without sending it. If server strategy, submit server-side request without persisting the resource.`)
	cmd.Flags().Lookup("dry-run").NoOptDefVal = "unchanged"
}

func (g *generatorFlags) addSaveConfig(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&g.SaveConfig, "save-config", false, "If true, the configuration of current object will be saved in its annotation. Otherwise, the annotation will be unchanged. This flag is useful when you want to perform kubectl apply on this object in the future.")
}

func (g *generatorFlags) addFieldManager(cmd *cobra.Command, manager string) {
	cmd.Flags().StringVar(&g.FieldManager, "field-manager", manager, "Name of the manager used to track field ownership.")
}

// dryRun reads --dry-run as kubectl does: client, server, none, or a
// (deprecated) boolean; a bare --dry-run means client. Deprecation
// warnings go to errOut.
func (g *generatorFlags) dryRun(errOut io.Writer) (dryRunMode, error) {
	b, err := strconv.ParseBool(g.DryRun)
	if err == nil {
		if b {
			fmt.Fprintf(errOut, "Warning: --dry-run=%v is deprecated (boolean value) and can be replaced with --dry-run=client.\n", g.DryRun)
			return dryRunClient, nil
		}
		fmt.Fprintf(errOut, "Warning: --dry-run=%v is deprecated (boolean value) and can be replaced with --dry-run=none.\n", g.DryRun)
		return dryRunNone, nil
	}
	switch g.DryRun {
	case "unchanged":
		fmt.Fprintln(errOut, "Warning: --dry-run is deprecated and can be replaced with --dry-run=client.")
		return dryRunClient, nil
	case "client":
		return dryRunClient, nil
	case "server":
		return dryRunServer, nil
	case "none":
		return dryRunNone, nil
	}
	//lint:ignore ST1005 kubectl's exact wording
	return dryRunNone, fmt.Errorf(`Invalid dry-run value (%v). Must be "none", "server", or "client".`, g.DryRun)
}

// createOptions are the options of the POST: field manager, validation and
// the server-side dry run.
func (g *generatorFlags) createOptions(mode dryRunMode) (metav1.CreateOptions, error) {
	validation, err := g.Validate.fieldValidation()
	if err != nil {
		return metav1.CreateOptions{}, err
	}
	opts := metav1.CreateOptions{FieldManager: g.FieldManager, FieldValidation: validation}
	if mode == dryRunServer {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	return opts, nil
}

// checkOutput rejects an -o value before anything is sent, as kubectl
// builds its printer first.
func (g *generatorFlags) checkOutput() error {
	return checkTypedOutput(g.Output)
}

// checkTypedOutput accepts the -o values printTyped knows, and "".
func checkTypedOutput(output string) error {
	switch output {
	case "", "json", "yaml", "name":
		return nil
	}
	if _, err := newObjectPrinter(output, false); err != nil {
		return noCompatiblePrinterError(output, createOutputFormats)
	}
	return nil
}

// printCreated prints a created (or dry-run) typed object: kubectl's
// "configmap/NAME created" line with its dry-run suffix, or the object in
// the -o format.
func (g *generatorFlags) printCreated(out io.Writer, mode dryRunMode, gvk schema.GroupVersionKind, obj metav1.Object) error {
	return g.printDone(out, "created", mode, gvk, obj)
}

// printDone prints obj in the -o format (without managedFields unless
// --show-managed-fields), or else kubectl's "KIND/NAME VERB" line with its
// dry-run suffix.
func (g *generatorFlags) printDone(out io.Writer, verb string, mode dryRunMode, gvk schema.GroupVersionKind, obj metav1.Object) error {
	if g.Output == "" {
		switch mode {
		case dryRunClient:
			verb += " (dry run)"
		case dryRunServer:
			verb += " (server dry run)"
		}
		return printTyped(out, &printers.NamePrinter{Operation: verb}, gvk, obj)
	}
	if g.printer == nil {
		p, err := newObjectPrinter(g.Output, false)
		if err != nil {
			return err
		}
		g.printer = omitManagedFields(g.Output, g.ShowManagedFields, p)
	}
	return printTyped(out, g.printer, gvk, obj)
}

// printTyped prints an object the server returned with p. The typed client
// drops apiVersion and kind; kubectl's printer sets them again.
func printTyped(out io.Writer, p printers.ResourcePrinter, gvk schema.GroupVersionKind, obj metav1.Object) error {
	robj, ok := obj.(runtime.Object)
	if !ok {
		return fmt.Errorf("cannot print %T", obj)
	}
	robj.GetObjectKind().SetGroupVersionKind(gvk)
	return p.PrintObj(robj, out)
}

// exactlyOneName is kubectl's NAME argument check for create subcommands:
// arguments after "--" do not count.
func exactlyOneName(cmd *cobra.Command, args []string) (string, error) {
	n := cmd.ArgsLenAtDash()
	if n == -1 {
		n = len(args)
	}
	if n != 1 {
		return "", UsageErrorf(cmd, "exactly one NAME is required, got %d", n)
	}
	return args[0], nil
}

// generated is an object a create subcommand built, ready to send.
type generated struct {
	obj  metav1.Object
	gvk  schema.GroupVersionKind
	what string // "configmap", "secret", in "failed to create ...: " messages
	sep  string // ": " (kubectl's create secret says "failed to create secret <err>")
	// post sends the object and returns what the server made of it.
	post func(ctx context.Context, cs kubernetes.Interface, ns string, opts metav1.CreateOptions) (metav1.Object, error)
}

// complete reads --dry-run, -o and --validate, in kubectl's order, before
// the command's own checks.
func (g *generatorFlags) complete(errOut io.Writer) (dryRunMode, error) {
	mode, err := g.dryRun(errOut)
	if err != nil {
		return mode, err
	}
	if err := g.checkOutput(); err != nil {
		return mode, err
	}
	_, err = g.Validate.fieldValidation()
	return mode, err
}

// runGenerator builds the object (namespaced only with an explicit -n, as
// kubectl does), POSTs it unless --dry-run=client, and prints the result.
func runGenerator(ctx context.Context, f *Factory, streams genericiooptions.IOStreams, g *generatorFlags, mode dryRunMode, build func(ns string) (generated, error)) error {
	ns, explicit, err := f.Namespace()
	if err != nil {
		return err
	}
	objNS := ""
	if explicit {
		objNS = ns
	}
	gen, err := build(objNS)
	if err != nil {
		return err
	}
	if err := saveConfig(g.SaveConfig, gen.obj); err != nil {
		return err
	}
	opts, err := g.createOptions(mode)
	if err != nil {
		return err
	}
	obj := gen.obj
	if mode != dryRunClient {
		cs, err := f.Clientset()
		if err != nil {
			return err
		}
		obj, err = gen.post(ctx, cs, ns, opts)
		if err != nil {
			return fmt.Errorf("failed to create %s%s%v", gen.what, gen.sep, err)
		}
	}
	return g.printCreated(streams.Out, mode, gen.gvk, obj)
}
