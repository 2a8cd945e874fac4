package cli

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	watchtools "k8s.io/client-go/tools/watch"
)

// waitOptions are the flags of `wait`.
type waitOptions struct {
	targets       targetFlags
	fieldSelector string
	forSpecs      []string
	timeout       time.Duration
	g             generatorFlags // -o and --show-managed-fields

	conds []waitCondition
}

func newWaitCmd(f *Factory, streams genericiooptions.IOStreams) *cobra.Command {
	o := &waitOptions{}
	cmd := &cobra.Command{
		Use:   "wait ([-f FILENAME] | resource.group/resource.name | resource.group [(-l label | --all)]) [--for=create|--for=delete|--for condition=available|--for=jsonpath='{}'[=value]]",
		Short: "Wait for a specific condition on one or many resources",
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.run(cmd.Context(), f, streams, args)
		},
	}
	fl := cmd.Flags()
	o.g.addOutput(cmd)
	o.targets.add(cmd, "identifying the resource.")
	fl.StringVar(&o.fieldSelector, "field-selector", "", "Selector (field query) to filter on, supports '=', '==', and '!='.(e.g. --field-selector key1=value1,key2=value2). The server only supports a limited number of field queries per type.")
	fl.DurationVar(&o.timeout, "timeout", 30*time.Second, "The length of time to wait before giving up. Zero means check once and don't wait, negative means wait for a week.")
	fl.StringArrayVar(&o.forSpecs, "for", nil, "The condition to wait on: [create|delete|condition=condition-name[=condition-value]|jsonpath='{JSONPath expression}'=[JSONPath value]]. The default condition-value is true. Condition values are compared after Unicode simple case folding, which is a more general form of case-insensitivity. Multiple conditions are supported and AND'ed to each other in a sequential order. If --for=create is passed, it is always waited first.")
	return cmd
}

func (o *waitOptions) has(kind waitKind) bool {
	for _, c := range o.conds {
		if c.kind == kind {
			return true
		}
	}
	return false
}

// run waits, under one overall --timeout, first for --for=create, then for
// every condition on every object in turn, printing "KIND/NAME condition
// met" for each condition met. Like kubectl, a failure on one object does
// not stop the others; all failures are reported at the end.
func (o *waitOptions) run(ctx context.Context, f *Factory, streams genericiooptions.IOStreams, args []string) error {
	if err := o.g.checkOutput(); err != nil {
		return err
	}
	conds, err := parseWaitConditions(o.forSpecs)
	if err != nil {
		return err
	}
	o.conds = conds
	if o.timeout < 0 {
		o.timeout = 168 * time.Hour
	}
	env, err := newWriteEnv(f, streams)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	parent := ctx
	ctx, cancel := watchtools.ContextWithOptionalTimeout(ctx, o.timeout)
	defer cancel()
	interrupted := func(err error) error {
		if parent.Err() != nil {
			return &ExitError{Code: 1} // kubectl exits 1 on Ctrl-C
		}
		return err
	}
	if o.has(waitForCreate) {
		if err := o.waitCreated(ctx, env, args); err != nil {
			return interrupted(err)
		}
	}
	visited, errs := o.visit(parent, ctx, env, args)
	if parent.Err() != nil {
		return &ExitError{Code: 1}
	}
	if len(errs) == 0 && visited == 0 && !o.has(waitForDelete) {
		return fmt.Errorf("no matching resources found")
	}
	return utilerrors.NewAggregate(errs)
}

// visit finds each object (as kubectl's builder visits them: -f objects,
// then named objects, then selected ones) and waits on it. An object that
// is not there is fine for --for=delete. Finding objects is not bounded by
// --timeout (fetchCtx), only waiting is (ctx), as in kubectl.
func (o *waitOptions) visit(fetchCtx, ctx context.Context, env *writeEnv, args []string) (int, []error) {
	visited := 0
	var errs []error
	each := func(info *objectInfo, err error) {
		if err != nil {
			if !(apierrors.IsNotFound(err) && o.has(waitForDelete)) {
				errs = append(errs, err)
			}
			return
		}
		visited++
		if err := o.waitOne(ctx, env, info); err != nil {
			errs = append(errs, err)
		}
	}
	if err := o.eachTarget(fetchCtx, env, args, each); err != nil {
		return visited, append(errs, err)
	}
	return visited, errs
}

// waitOne runs every condition on one object in order, printing each one
// met, and stops at the first that is not.
func (o *waitOptions) waitOne(ctx context.Context, env *writeEnv, info *objectInfo) error {
	dyn, err := env.f.Dynamic()
	if err != nil {
		return err
	}
	for _, c := range o.conds {
		var obj metav1.Object
		switch c.kind {
		case waitForCreate:
			obj = info.Obj
		case waitForDelete:
			obj, err = o.waitDeleted(ctx, dyn, info)
		default:
			obj, err = o.waitMet(ctx, dyn, env.streams, info, c)
		}
		if err != nil {
			return err
		}
		if err := o.g.printDone(env.streams.Out, "condition met", dryRunNone, info.Mapping.GroupVersionKind, obj); err != nil {
			return err
		}
	}
	return nil
}
