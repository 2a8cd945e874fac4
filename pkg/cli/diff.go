package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/dynamic"
)

// diffAttempts is how often diff reads the object again when the server
// reports that it changed between the read and the dry-run apply; the last
// attempt goes without the resourceVersion lock, as in kubectl.
const diffAttempts = 4

// diffErrorCode is diff's exit status for its own failures: 1 means
// "differences found", so errors need another number.
const diffErrorCode = 2

func newDiffCmd(f *Factory, streams genericiooptions.IOStreams) *cobra.Command {
	var ff fileFlags
	var ssa applyServerSideFlags
	var opts diffOptions
	cmd := &cobra.Command{
		Use:   "diff -f FILENAME",
		Short: "Diff the live version against a would-be applied version",
		Long: "Diff configurations specified by file name or stdin between the current online\n" +
			"configuration, and the configuration as it would be if applied.\n\n" +
			"The output is always YAML. KUBECTL_EXTERNAL_DIFF selects the diff command\n" +
			"(default: diff -u -N). Exit status: 0 no differences, 1 differences found,\n" +
			">1 minictl or diff failed. --prune is not supported.",
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := ssa.validateForDiff(cmd, args, ff); err != nil {
				return &ExitError{Code: diffErrorCode, Err: err}
			}
			ssa.resolveManager(cmd)
			env, err := newWriteEnv(f, streams)
			if err != nil {
				return &ExitError{Code: diffErrorCode, Err: err}
			}
			apply := diffApply{serverSide: ssa.ServerSide, force: ssa.Force, manager: ssa.Manager}
			err = env.diff(cmd.Context(), ff, apply, opts)
			if err != nil && !errors.Is(err, ErrExit) {
				return &ExitError{Code: diffErrorCode, Err: err}
			}
			return err
		},
	}
	// Flag errors exit 1 elsewhere, but 1 means "differences found" here.
	cmd.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return &ExitError{Code: diffErrorCode, Err: UsageErrorf(cmd, "%s", err.Error())}
	})
	ff.add(cmd, "that contains the configuration to diff")
	ssa.add(cmd)
	cmd.Flags().BoolVar(&opts.showManagedFields, "show-managed-fields", false, "If true, include managed fields in the diff.")
	cmd.Flags().BoolVar(&opts.showSecrets, "show-secrets", false, "If true, do not mask secret values in the diff.")
	cmd.Flags().StringVarP(&opts.selector, "selector", "l", "", "Selector (label query) to filter on, supports '=', '==', '!=', 'in', 'notin'.(e.g. -l key1=value1,key2=value2,key3 in (value3)). Matching objects must satisfy all of the specified label constraints.")
	// minictl diffs one object after the other; the output is the same.
	cmd.Flags().Int("concurrency", 1, "Accepted for kubectl compatibility; objects are processed one at a time.")
	return cmd
}

// validateForDiff checks diff's arguments in kubectl's order.
func (f *applyServerSideFlags) validateForDiff(cmd *cobra.Command, args []string, ff fileFlags) error {
	if len(args) != 0 {
		return UsageErrorf(cmd, "Unexpected args: %v", args)
	}
	if len(ff.Filenames) == 0 {
		return fmt.Errorf("must specify one of -f and -k")
	}
	if f.Force && !f.ServerSide {
		return fmt.Errorf("--force-conflicts only works with --server-side")
	}
	return nil
}

// diff writes every object of the manifests, live and as apply would leave
// it, into two directories and runs the diff program on them. It stops at
// the first error, before running the diff program, as kubectl does.
func (e *writeEnv) diff(ctx context.Context, ff fileFlags, apply diffApply, opts diffOptions) error {
	dirs, err := newDiffDirs()
	if err != nil {
		return err
	}
	defer dirs.remove()
	set, err := readManifests(ff.Filenames, ff.Recursive, e.streams.In)
	if err != nil {
		return err
	}
	selector, err := labels.Parse(opts.selector)
	if err != nil {
		return fmt.Errorf("the provided selector %q is not valid: %v", opts.selector, err)
	}
	if err := e.diffManifests(ctx, set, selector, apply, opts, dirs); err != nil {
		return err
	}
	return runDiffProgram(ctx, e.streams, os.Getenv(externalDiffEnv), dirs.live, dirs.merged)
}

// diffManifests handles the documents and reading errors in the order they
// were read, stopping at the first failure. Objects whose labels the
// selector does not match are skipped once mapped.
func (e *writeEnv) diffManifests(ctx context.Context, set *manifestSet, selector labels.Selector, apply diffApply, opts diffOptions, dirs *diffDirs) error {
	if len(set.Docs) == 0 {
		if len(set.Errs) > 0 {
			return unvalidatedManifestError(set.Errs[0])
		}
		return nil
	}
	mapper, err := e.f.RESTMapper()
	if err != nil {
		return err
	}
	dyn, err := e.f.Dynamic()
	if err != nil {
		return err
	}
	for _, i := range set.Order {
		if i < 0 {
			return unvalidatedManifestError(set.Errs[-1-i])
		}
		info, err := mapManifest(mapper, set.Docs[i], e.target)
		if err != nil {
			return err
		}
		if !selector.Matches(labels.Set(info.Obj.GetLabels())) {
			continue
		}
		if err := e.diffOne(ctx, dyn, info, apply, opts, dirs); err != nil {
			return err
		}
	}
	return nil
}

// unvalidatedManifestError words a document the decoder refused as
// kubectl's diff does: it reads manifests without client-side validation.
func unvalidatedManifestError(err error) error {
	var u *undecodableManifest
	if errors.As(err, &u) {
		return u.unvalidated()
	}
	return err
}

// diffOne reads the live object and asks for the merged one, again if the
// object changed in between, and writes both.
func (e *writeEnv) diffOne(ctx context.Context, dyn dynamic.Interface, info *objectInfo, apply diffApply, opts diffOptions, dirs *diffDirs) error {
	if info.Name == "" {
		// client-go's request refuses an empty name with these words.
		return fmt.Errorf("resource name may not be empty")
	}
	client := info.client(dyn)
	var live *unstructured.Unstructured
	var err error
	for attempt := 1; attempt <= diffAttempts; attempt++ {
		live, err = client.Get(ctx, info.Name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			live, err = nil, nil
		}
		if err != nil {
			return err
		}
		if attempt == diffAttempts {
			warnKeepsChanging(e.streams.ErrOut, time.Now(), info, live)
		}
		var merged *unstructured.Unstructured
		merged, err = apply.merged(ctx, client, info, live, attempt == diffAttempts)
		if err == nil {
			err = dirs.write(diffObjectName(info), live, merged, opts)
		}
		if !apierrors.IsConflict(err) {
			break
		}
	}
	if live != nil && live.GetDeletionTimestamp() != nil {
		fmt.Fprintf(e.streams.ErrOut, warningChangesOnDeletingResource, live.GetName())
	}
	return err
}

// warnKeepsChanging says that diff gives up on reading a consistent object,
// as kubectl's warning does: a klog line, header included.
func warnKeepsChanging(w io.Writer, now time.Time, info *objectInfo, live *unstructured.Unstructured) {
	gvk := info.Mapping.GroupVersionKind
	if live != nil {
		gvk = live.GroupVersionKind()
	}
	fmt.Fprintf(w, "W%s %7d diff.go:723] Object (%v: %v) keeps changing, diffing without lock\n",
		now.Format("0102 15:04:05.000000"), os.Getpid(), gvk, info.Name)
}

// diffObjectName is the file name of an object in both directories:
// [group.]version.Kind.namespace.name.
func diffObjectName(info *objectInfo) string {
	gvk := info.Mapping.GroupVersionKind
	name := fmt.Sprintf("%s.%s.%s.%s", gvk.Version, gvk.Kind, info.Namespace, info.Name)
	if gvk.Group != "" {
		return gvk.Group + "." + name
	}
	return name
}
