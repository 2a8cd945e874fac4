package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/cli-runtime/pkg/printers"
)

// eventsOutputFormats are the -o values `events` accepts (kubectl also has
// the go-template ones and kyaml, which minictl lacks).
var eventsOutputFormats = createOutputFormats

// eventsOptions are the flags of `events`.
type eventsOptions struct {
	allNamespaces bool
	watch         bool
	noHeaders     bool
	forObject     string
	types         []string
	chunkSize     int64
	output        string
	showManaged   bool
}

func newEventsCmd(f *Factory, streams genericiooptions.IOStreams) *cobra.Command {
	o := &eventsOptions{}
	cmd := &cobra.Command{
		Use:   "events [(-o|--output=)json|yaml|name|jsonpath|jsonpath-as-json|jsonpath-file] [--for TYPE/NAME] [--watch] [--types=Normal,Warning]",
		Short: "List events",
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.run(cmd.Context(), f, streams)
		},
	}
	fl := cmd.Flags()
	fl.BoolVarP(&o.watch, "watch", "w", false, "After listing the requested events, watch for more events.")
	fl.BoolVarP(&o.allNamespaces, "all-namespaces", "A", false, "If present, list the requested object(s) across all namespaces. Namespace in current context is ignored even if specified with --namespace.")
	fl.StringVar(&o.forObject, "for", "", "Filter events to only those pertaining to the specified resource.")
	fl.StringSliceVar(&o.types, "types", nil, "Output only events of given types.")
	fl.BoolVar(&o.noHeaders, "no-headers", false, "When using the default output format, don't print headers.")
	fl.Int64Var(&o.chunkSize, "chunk-size", 500, "Return large lists in chunks rather than all at once. Pass 0 to disable. This flag is beta and may change in the future.")
	fl.StringVarP(&o.output, "output", "o", "", "Output format. One of: (json, yaml, name, jsonpath, jsonpath-as-json, jsonpath-file).")
	fl.BoolVar(&o.showManaged, "show-managed-fields", false, "If true, keep the managedFields when printing objects in JSON or YAML format.")
	return cmd
}

// run lists core/v1 events (as kubectl events does, not events.k8s.io),
// oldest first, or with --watch prints them as they come.
func (o *eventsOptions) run(ctx context.Context, f *Factory, streams genericiooptions.IOStreams) error {
	ns, _, err := f.Namespace()
	if err != nil {
		return err
	}
	sel, err := o.forSelector(f, streams.ErrOut)
	if err != nil {
		return err
	}
	o.types = sortedUnique(o.types)
	printer, err := o.printer()
	if err != nil {
		return err
	}
	for _, t := range o.types {
		if !strings.EqualFold(t, corev1.EventTypeNormal) && !strings.EqualFold(t, corev1.EventTypeWarning) {
			return fmt.Errorf("valid --types are Normal or Warning")
		}
	}
	listNS := ns
	if o.allNamespaces {
		listNS = ""
	}
	cs, err := f.Clientset()
	if err != nil {
		return err
	}
	opts := metav1.ListOptions{Limit: o.chunkSize, FieldSelector: sel}
	if o.watch {
		return o.watchEvents(ctx, cs.CoreV1().Events(listNS), opts, printer, streams.Out)
	}
	var events []corev1.Event
	for {
		list, err := cs.CoreV1().Events(listNS).List(ctx, opts)
		if err != nil {
			return err
		}
		events = append(events, o.keep(list.Items)...)
		if list.Continue == "" {
			break
		}
		opts.Continue = list.Continue
	}
	if len(events) == 0 {
		if o.allNamespaces {
			fmt.Fprintln(streams.ErrOut, "No events found.")
		} else {
			fmt.Fprintf(streams.ErrOut, "No events found in %s namespace.\n", ns)
		}
		return nil
	}
	sortEventsByTime(events)
	tw := printers.GetNewTabWriter(streams.Out)
	list := &corev1.EventList{TypeMeta: metav1.TypeMeta{Kind: "EventList", APIVersion: "v1"}, Items: events}
	if o.output == "name" {
		// kubectl's name printer refuses a typed list, and kubectl events
		// ignores that error: it prints nothing and succeeds.
		return nil
	}
	if err := printer.PrintObj(list, tw); err != nil {
		return err
	}
	return tw.Flush()
}

// forSelector turns --for TYPE/NAME into the field selector on the
// involved object's kind, apiVersion and name.
func (o *eventsOptions) forSelector(f *Factory, errOut io.Writer) (string, error) {
	if o.forObject == "" {
		return "", nil
	}
	typ, name, ok := strings.Cut(o.forObject, "/")
	if !ok {
		return "", fmt.Errorf("--for must be in resource/name form")
	}
	if strings.Contains(name, "/") {
		return "", fmt.Errorf("arguments in resource/name form may not have more than one slash")
	}
	m, err := f.ResolveResource(typ)
	var noMatch *meta.NoResourceMatchError
	if errors.As(err, &noMatch) {
		// kubectl prints the mapper's own error here, without "error: ".
		fmt.Fprintln(errOut, strings.TrimPrefix(noMatchMessage(noMatch), "error: "))
		return "", ErrExit
	}
	if err != nil {
		return "", err
	}
	gvk := m.GroupVersionKind
	return fields.AndSelectors(
		fields.OneTermEqualSelector("involvedObject.kind", gvk.Kind),
		fields.OneTermEqualSelector("involvedObject.apiVersion", gvk.GroupVersion().String()),
		fields.OneTermEqualSelector("involvedObject.name", name)).String(), nil
}

// keep filters by --types and gives each event its apiVersion and kind,
// which kubectl prints in -o output.
func (o *eventsOptions) keep(events []corev1.Event) []corev1.Event {
	var out []corev1.Event
	for _, e := range events {
		if !o.typeWanted(e.Type) {
			continue
		}
		if e.APIVersion == "" && e.Kind == "" {
			e.APIVersion, e.Kind = "v1", "Event"
		}
		out = append(out, e)
	}
	return out
}

func (o *eventsOptions) typeWanted(t string) bool {
	return len(o.types) == 0 || slices.ContainsFunc(o.types, func(w string) bool { return strings.EqualFold(w, t) })
}

// printer is the table, or the -o format applied to the typed objects.
func (o *eventsOptions) printer() (printers.ResourcePrinter, error) {
	if o.output == "" {
		return &eventsTable{noHeaders: o.noHeaders, allNamespaces: o.allNamespaces, now: time.Now}, nil
	}
	p, err := newObjectPrinter(o.output, o.noHeaders)
	if err != nil {
		return nil, noCompatiblePrinterError(o.output, eventsOutputFormats)
	}
	return omitManagedFields(o.output, o.showManaged, p), nil
}

// watchEvents prints each event the watch brings (the server first sends
// the current ones), never deletions, until Ctrl-C, which ends minictl with
// status 1 as it ends kubectl.
func (o *eventsOptions) watchEvents(ctx context.Context, client interface {
	Watch(context.Context, metav1.ListOptions) (watch.Interface, error)
}, opts metav1.ListOptions, printer printers.ResourcePrinter, out io.Writer) error {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	w, err := client.Watch(ctx, opts)
	if err != nil {
		return err
	}
	defer w.Stop()
	tw := printers.GetNewTabWriter(out)
	for {
		select {
		case <-ctx.Done():
			return &ExitError{Code: 1}
		case ev, ok := <-w.ResultChan():
			if !ok {
				return nil
			}
			e, isEvent := ev.Object.(*corev1.Event)
			if ev.Type == watch.Deleted || !isEvent || !o.typeWanted(e.Type) {
				continue
			}
			if e.GetObjectKind().GroupVersionKind().Empty() {
				e.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{Version: "v1", Kind: "Event"})
			}
			if err := printer.PrintObj(e, tw); err != nil {
				return err
			}
			if err := tw.Flush(); err != nil {
				return err
			}
		}
	}
}

func sortedUnique(values []string) []string {
	if len(values) == 0 {
		return values
	}
	out := slices.Clone(values)
	slices.Sort(out)
	return slices.Compact(out)
}
