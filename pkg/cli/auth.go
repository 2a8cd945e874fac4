package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/cli-runtime/pkg/printers"
)

func newAuthCmd(f *Factory, streams genericiooptions.IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "auth",
		Short: "Inspect authorization",
		RunE:  groupRun,
	}
	cmd.AddCommand(newCanICmd(f, streams), newWhoAmICmd(f, streams))
	return cmd
}

// The verbs kubectl knows; others are sent all the same, with a warning.
var (
	resourceVerbs    = sets.New("get", "list", "watch", "create", "update", "patch", "delete", "deletecollection", "use", "bind", "impersonate", "*", "approve", "sign", "escalate", "attest")
	nonResourceVerbs = sets.New("get", "put", "post", "head", "options", "delete", "patch", "*")
	// unlistedResources exist on every server without being discoverable
	// (the targets of impersonate).
	unlistedResources = sets.New("users", "groups")
)

// canIFlags are the flags of auth can-i.
type canIFlags struct {
	allNamespaces bool
	quiet         bool
	subresource   string
	list          bool
	noHeaders     bool
}

func newCanICmd(f *Factory, streams genericiooptions.IOStreams) *cobra.Command {
	var fl canIFlags
	cmd := &cobra.Command{
		Use:   "can-i VERB [TYPE | TYPE/NAME | NONRESOURCEURL]",
		Short: "Check whether an action is allowed",
		RunE: func(cmd *cobra.Command, args []string) error {
			return runCanI(cmd, f, streams, fl, args)
		},
	}
	cmd.Flags().BoolVarP(&fl.allNamespaces, "all-namespaces", "A", false, "If true, check the specified action in all namespaces.")
	cmd.Flags().BoolVarP(&fl.quiet, "quiet", "q", false, "If true, suppress output and just return the exit code.")
	cmd.Flags().StringVar(&fl.subresource, "subresource", "", "SubResource such as pod/log or deployment/scale")
	cmd.Flags().BoolVar(&fl.list, "list", false, "If true, prints all allowed actions.")
	cmd.Flags().BoolVar(&fl.noHeaders, "no-headers", false, "If true, prints allowed actions without headers")
	return cmd
}

// runCanI asks the server with a SelfSubjectAccessReview and prints "yes"
// or "no" (with the reason); "no" exits 1.
func runCanI(cmd *cobra.Command, f *Factory, streams genericiooptions.IOStreams, fl canIFlags, args []string) error {
	if fl.list {
		if len(args) != 0 {
			return fmt.Errorf("list option must be specified with no arguments")
		}
		if fl.quiet || fl.allNamespaces || fl.subresource != "" {
			return fmt.Errorf("list option can't be specified with neither quiet, all-namespaces nor subresource options")
		}
		ns, _, err := f.Namespace()
		if err != nil {
			return err
		}
		cs, err := f.Clientset()
		if err != nil {
			return err
		}
		return runCanIList(cmd.Context(), cs, ns, fl.noHeaders, streams.Out, streams.ErrOut)
	}
	out := streams.Out
	if fl.quiet {
		out = io.Discard
	}
	if len(args) != 2 {
		//lint:ignore ST1005 kubectl's exact wording
		return fmt.Errorf("you must specify two arguments: verb resource or verb resource/resourceName.\nSee '%s -h' for help and examples.", cmd.CommandPath())
	}
	verb := args[0]
	attrs := &authorizationv1.ResourceAttributes{Verb: verb, Subresource: fl.subresource}
	var nonResource *authorizationv1.NonResourceAttributes
	var gvr schema.GroupVersionResource
	if strings.HasPrefix(args[1], "/") {
		nonResource = &authorizationv1.NonResourceAttributes{Verb: verb, Path: args[1]}
	} else {
		mapper, err := f.RESTMapper()
		if err != nil {
			return err
		}
		typ, name, _ := strings.Cut(args[1], "/")
		gvr = canIResource(mapper, typ, streams.ErrOut)
		attrs.Group, attrs.Resource, attrs.Name = gvr.Group, gvr.Resource, name
	}
	if !fl.allNamespaces {
		ns, _, err := f.Namespace()
		if err != nil {
			return err
		}
		attrs.Namespace = ns
	}
	if err := checkCanI(f, streams.ErrOut, fl, verb, nonResource, gvr); err != nil {
		return err
	}
	if fl.noHeaders {
		return fmt.Errorf("--no-headers cannot be set without --list specified")
	}
	review := &authorizationv1.SelfSubjectAccessReview{}
	if nonResource != nil {
		review.Spec.NonResourceAttributes = nonResource
	} else {
		review.Spec.ResourceAttributes = attrs
	}
	cs, err := f.Clientset()
	if err != nil {
		return err
	}
	res, err := cs.AuthorizationV1().SelfSubjectAccessReviews().Create(cmd.Context(), review, metav1.CreateOptions{})
	if err != nil {
		return err
	}
	if !printAccess(out, res.Status) {
		return ErrExit
	}
	return nil
}

// checkCanI refuses contradictory arguments and warns, as kubectl does,
// about unknown verbs and about namespaces given for cluster-wide kinds.
func checkCanI(f *Factory, errOut io.Writer, fl canIFlags, verb string, nonResource *authorizationv1.NonResourceAttributes, gvr schema.GroupVersionResource) error {
	if nonResource != nil {
		if fl.subresource != "" {
			return fmt.Errorf("--subresource can not be used with NonResourceURL")
		}
		if !nonResourceVerbs.Has(verb) {
			warn(errOut, "verb '%s' is not a known verb\n", verb)
		}
		return nil
	}
	if gvr.Empty() || fl.allNamespaces {
		return nil
	}
	if namespaced, err := resourceNamespaced(f, gvr); err == nil && !namespaced {
		if gvr.Group == "" {
			warn(errOut, "resource '%s' is not namespace scoped\n", gvr.Resource)
		} else {
			warn(errOut, "resource '%s' is not namespace scoped in group '%s'\n", gvr.Resource, gvr.Group)
		}
	}
	if !resourceVerbs.Has(verb) {
		warn(errOut, "verb '%s' is not a known verb\n", verb)
	}
	return nil
}

// warn prints kubectl's "Warning: " line; messages that end in a newline
// leave a blank line after them, as kubectl's do.
func warn(errOut io.Writer, format string, a ...any) {
	fmt.Fprintf(errOut, "Warning: "+format+"\n", a...)
}

// canIResource maps TYPE[.group] to a resource through discovery; an
// unknown type is asked about as written, with a warning.
func canIResource(mapper meta.RESTMapper, typ string, errOut io.Writer) schema.GroupVersionResource {
	if typ == "*" {
		return schema.GroupVersionResource{Resource: typ}
	}
	full, gr := schema.ParseResourceArg(strings.ToLower(typ))
	var gvr schema.GroupVersionResource
	if full != nil {
		gvr, _ = mapper.ResourceFor(*full)
	}
	if !gvr.Empty() {
		return gvr
	}
	gvr, err := mapper.ResourceFor(gr.WithVersion(""))
	if err == nil {
		return gvr
	}
	if !unlistedResources.Has(gr.String()) {
		if gr.Group == "" {
			warn(errOut, "the server doesn't have a resource type '%s'\n", gr.Resource)
		} else {
			warn(errOut, "the server doesn't have a resource type '%s' in group '%s'\n", gr.Resource, gr.Group)
		}
	}
	return schema.GroupVersionResource{Resource: typ}
}

// resourceNamespaced asks discovery whether gvr lives in namespaces.
func resourceNamespaced(f *Factory, gvr schema.GroupVersionResource) (bool, error) {
	if gvr.Resource == "*" {
		return true, nil
	}
	d, err := f.Discovery()
	if err != nil {
		return true, err
	}
	list, err := d.ServerResourcesForGroupVersion(gvr.GroupVersion().String())
	if err != nil {
		return true, err
	}
	for _, r := range list.APIResources {
		if r.Name == gvr.Resource {
			return r.Namespaced, nil
		}
	}
	return false, fmt.Errorf("the server doesn't have a resource type '%s' in group '%s'", gvr.Resource, gvr.Group)
}

// printAccess prints kubectl's answer and reports whether access is
// allowed: "yes", or "no" followed by the reason and evaluation error.
func printAccess(out io.Writer, st authorizationv1.SubjectAccessReviewStatus) bool {
	if st.Allowed {
		fmt.Fprintln(out, "yes")
		return true
	}
	fmt.Fprint(out, "no")
	if st.Reason != "" {
		fmt.Fprintf(out, " - %v", st.Reason)
	}
	if st.EvaluationError != "" {
		fmt.Fprintf(out, " - %v", st.EvaluationError)
	}
	fmt.Fprintln(out)
	return false
}

func newWhoAmICmd(f *Factory, streams genericiooptions.IOStreams) *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "whoami",
		Short: "Experimental: Check self subject attributes",
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkTypedOutput(output); err != nil {
				return err
			}
			cs, err := f.Clientset()
			if err != nil {
				return err
			}
			res, err := cs.AuthenticationV1().SelfSubjectReviews().Create(cmd.Context(), &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
			switch {
			case apierrors.IsForbidden(err):
				return fmt.Errorf("the selfsubjectreviews API is not enabled in the cluster or you do not have permission to call it")
			case apierrors.IsNotFound(err):
				return fmt.Errorf("the selfsubjectreviews API is not enabled in the cluster")
			case err != nil:
				return err
			}
			if output == "" {
				return printUserInfo(streams.Out, res.Status.UserInfo)
			}
			p, err := newObjectPrinter(output, false)
			if err != nil {
				return err
			}
			return printTyped(streams.Out, p, authenticationv1.SchemeGroupVersion.WithKind("SelfSubjectReview"), res)
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "", "Output format. One of: (json, yaml, name, jsonpath, jsonpath-as-json, jsonpath-file).")
	return cmd
}

// printUserInfo is whoami's ATTRIBUTE/VALUE table.
func printUserInfo(out io.Writer, ui authenticationv1.UserInfo) error {
	w := printers.GetNewTabWriter(out)
	fmt.Fprintf(w, "ATTRIBUTE\tVALUE\n")
	if ui.Username != "" {
		fmt.Fprintf(w, "Username\t%s\n", ui.Username)
	}
	if ui.UID != "" {
		fmt.Fprintf(w, "UID\t%s\n", ui.UID)
	}
	if len(ui.Groups) > 0 {
		fmt.Fprintf(w, "Groups\t%v\n", ui.Groups)
	}
	for _, k := range sets.List(sets.KeySet(ui.Extra)) {
		fmt.Fprintf(w, "Extra: %s\t%v\n", k, ui.Extra[k])
	}
	return w.Flush()
}
