package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/cli-runtime/pkg/printers"
)

// getOptions are get's flags and what Complete derived from them.
type getOptions struct {
	Output            string
	LabelSelector     string
	FieldSelector     string
	AllNamespaces     bool
	ShowLabels        bool
	LabelColumns      []string
	NoHeaders         bool
	SortBy            string
	ChunkSize         int64
	Watch             bool
	WatchOnly         bool
	OutputWatchEvents bool
	ShowKind          bool
	IgnoreNotFound    bool
	ShowManagedFields bool

	namespace string
	human     bool                     // default or wide: server-side Tables
	printer   printers.ResourcePrinter // -o name|json|yaml|jsonpath|custom-columns
	streams   genericiooptions.IOStreams
}

func newGetCmd(f *Factory, streams genericiooptions.IOStreams) *cobra.Command {
	o := &getOptions{ChunkSize: 500, streams: streams}
	cmd := &cobra.Command{
		Use:   "get [(-o|--output=)json|yaml|name|wide|custom-columns=...|jsonpath=...] (TYPE[.VERSION][.GROUP] [NAME | -l label] | TYPE[.VERSION][.GROUP]/NAME ...) [flags]",
		Short: "Display one or many resources",
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.complete(f, cmd, args); err != nil {
				return err
			}
			refs, err := f.ResolveArgs(args)
			if err != nil {
				return err
			}
			if err := o.validateRefs(refs); err != nil {
				return err
			}
			if o.Watch || o.WatchOnly {
				return o.watch(cmd.Context(), f, refs)
			}
			return o.run(cmd.Context(), f, refs, len(refs) == 1 && refs[0].Name != "")
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&o.Output, "output", "o", "", "Output format. One of: (json, yaml, name, wide, jsonpath, jsonpath-file, jsonpath-as-json, custom-columns, custom-columns-file).")
	fl.StringVarP(&o.LabelSelector, "selector", "l", "", "Selector (label query) to filter on, supports '=', '==', '!=', 'in', 'notin'.(e.g. -l key1=value1,key2=value2,key3 in (value3)).")
	fl.StringVar(&o.FieldSelector, "field-selector", "", "Selector (field query) to filter on, supports '=', '==', and '!='.(e.g. --field-selector key1=value1,key2=value2).")
	fl.BoolVarP(&o.AllNamespaces, "all-namespaces", "A", false, "If present, list the requested object(s) across all namespaces.")
	fl.BoolVar(&o.ShowLabels, "show-labels", false, "When printing, show all labels as the last column (default hide labels column).")
	fl.StringSliceVarP(&o.LabelColumns, "label-columns", "L", nil, "Accepts a comma separated list of labels that are going to be presented as columns.")
	fl.BoolVar(&o.NoHeaders, "no-headers", false, "When using the default or custom-column output format, don't print headers (default print headers).")
	fl.StringVar(&o.SortBy, "sort-by", "", "If non-empty, sort list types using this field specification (a JSONPath expression).")
	fl.Int64Var(&o.ChunkSize, "chunk-size", 500, "Return large lists in chunks rather than all at once. Pass 0 to disable.")
	fl.BoolVarP(&o.Watch, "watch", "w", false, "After listing/getting the requested object, watch for changes.")
	fl.BoolVar(&o.WatchOnly, "watch-only", false, "Watch for changes to the requested object(s), without listing/getting first.")
	fl.BoolVar(&o.OutputWatchEvents, "output-watch-events", false, "Output watch event objects when --watch or --watch-only is used.")
	fl.BoolVar(&o.ShowKind, "show-kind", false, "If present, list the resource type for the requested object(s).")
	fl.BoolVar(&o.ShowManagedFields, "show-managed-fields", false, "If true, keep the managedFields when printing objects in JSON or YAML format.")
	fl.BoolVar(&o.IgnoreNotFound, "ignore-not-found", false, "If set to true, suppresses NotFound error for specific objects that do not exist.")
	return cmd
}

// complete checks the flags and builds the printer before any request is
// sent, so that a bad template fails without touching the server.
func (o *getOptions) complete(f *Factory, cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		fmt.Fprint(o.streams.ErrOut, "You must specify the type of resource to get. Use \"minictl api-resources\" for a complete list of supported resources.\n\n")
		return UsageErrorf(cmd, "Required resource not specified.")
	}
	switch o.Output {
	case "", "wide":
		o.human = true
	default:
		p, err := newObjectPrinter(o.Output, o.NoHeaders)
		if err != nil {
			return err
		}
		o.printer = omitManagedFields(o.Output, o.ShowManagedFields, p)
	}
	ns, _, err := f.Namespace()
	if err != nil {
		return err
	}
	o.namespace = ns
	return nil
}

func (o *getOptions) validateRefs(refs []ResourceRef) error {
	for _, r := range refs {
		if r.Name != "" && o.AllNamespaces {
			return fmt.Errorf("a resource cannot be retrieved by name across all namespaces")
		}
	}
	return nil
}

// requestNamespace is the namespace part of request paths ("" for -A).
func (o *getOptions) requestNamespace() string {
	if o.AllNamespaces {
		return ""
	}
	return o.namespace
}

func (o *getOptions) query() listQuery {
	return listQuery{
		LabelSelector: o.LabelSelector,
		FieldSelector: o.FieldSelector,
		Limit:         o.ChunkSize,
		IncludeObject: o.human && o.SortBy != "",
	}
}

func (o *getOptions) accept() string {
	if o.human {
		return acceptTable
	}
	return acceptJSON
}

// fetched is what one reference returned: Tables (one per page or named
// object) for human output, decoded objects otherwise.
type fetched struct {
	ref     ResourceRef
	tables  []*metav1.Table
	objects []map[string]any
	rv      string
}

// fetch lists a collection (following continue tokens) or gets one object.
func (o *getOptions) fetch(ctx context.Context, f *Factory, ref ResourceRef) (*fetched, error) {
	c, err := f.RawClient()
	if err != nil {
		return nil, err
	}
	out := &fetched{ref: ref}
	path := ResourcePath(ref.Mapping, o.requestNamespace(), ref.Name)
	if ref.Name != "" {
		body, err := getRaw(ctx, c, path, o.accept(), listQuery{})
		if err != nil {
			return nil, err
		}
		return out, out.add(body, o.human)
	}
	q := o.query()
	for {
		body, err := getRaw(ctx, c, path, o.accept(), q)
		if err != nil {
			return nil, enhanceListError(err, q, ref)
		}
		next, err := out.addPage(body, o.human)
		if err != nil {
			return nil, err
		}
		if next == "" {
			return out, nil
		}
		q.Continue = next
	}
}

// add records a named object's response.
func (r *fetched) add(body []byte, human bool) error {
	if human {
		t, err := decodeTable(body)
		if err != nil {
			return err
		}
		r.tables = append(r.tables, t)
		return nil
	}
	obj, err := decodeObjectFields(body, true) // the printer omits them
	if err != nil {
		return err
	}
	r.objects = append(r.objects, obj)
	return nil
}

// addPage records one page of a list and returns its continue token.
func (r *fetched) addPage(body []byte, human bool) (string, error) {
	if human {
		t, err := decodeTable(body)
		if err != nil {
			return "", err
		}
		r.tables = append(r.tables, t)
		r.rv = t.ResourceVersion
		return t.Continue, nil
	}
	list, err := decodeObjectFields(body, true)
	if err != nil {
		return "", err
	}
	items, _ := listItems(list)
	r.objects = append(r.objects, items...)
	r.rv = metaString(list, "resourceVersion")
	return metaString(list, "continue"), nil
}

// enhanceListError adds what was listed to a NotFound or BadRequest, as
// kubectl does ("Unable to find \"apps/v1, Resource=deployments\" that
// match label selector ...").
func enhanceListError(err error, q listQuery, ref ResourceRef) error {
	se, ok := err.(*apierrors.StatusError)
	if !ok {
		return err
	}
	subj := ref.Mapping.Resource.String()
	switch {
	case apierrors.IsNotFound(err) && q.LabelSelector == "" && q.FieldSelector == "":
		se.ErrStatus.Message = fmt.Sprintf("Unable to list %q: %v", subj, se.ErrStatus.Message)
	case apierrors.IsNotFound(err) || apierrors.IsBadRequest(err):
		se.ErrStatus.Message = fmt.Sprintf("Unable to find %q that match label selector %q, field selector %q: %v",
			subj, q.LabelSelector, q.FieldSelector, se.ErrStatus.Message)
	}
	return se
}

// run is get without --watch.
func (o *getOptions) run(ctx context.Context, f *Factory, refs []ResourceRef, singleItem bool) error {
	var results []*fetched
	var errs []error
	for _, ref := range refs {
		r, err := o.fetch(ctx, f, ref)
		if err != nil {
			if o.IgnoreNotFound && apierrors.IsNotFound(err) {
				continue
			}
			errs = append(errs, err)
			continue
		}
		results = append(results, r)
	}
	if !o.human {
		if singleItem && len(errs) > 0 {
			return errs[0]
		}
		if len(results) == 0 && o.IgnoreNotFound {
			return utilerrors.NewAggregate(errs)
		}
		if err := o.printGeneric(results, singleItem && o.LabelSelector == ""); err != nil {
			errs = append(errs, err)
		}
		return utilerrors.NewAggregate(errs)
	}
	written, err := o.printTables(results)
	if err != nil {
		errs = append(errs, err)
	}
	if written == 0 && !o.IgnoreNotFound && len(errs) == 0 {
		o.printNoResources(results)
	}
	return utilerrors.NewAggregate(errs)
}

func (o *getOptions) printNoResources(results []*fetched) {
	allNamespaced := !o.AllNamespaces
	for _, r := range results {
		allNamespaced = allNamespaced && r.ref.Namespaced()
	}
	if allNamespaced {
		fmt.Fprintf(o.streams.ErrOut, "No resources found in %s namespace.\n", o.namespace)
		return
	}
	fmt.Fprintln(o.streams.ErrOut, "No resources found")
}

// printGeneric prints objects with -o name|json|yaml|jsonpath|custom-columns:
// one named object as itself, anything else as a v1 List.
func (o *getOptions) printGeneric(results []*fetched, singleItem bool) error {
	var objs []map[string]any
	for _, r := range results {
		objs = append(objs, r.objects...)
	}
	if o.SortBy != "" {
		if err := sortObjects(objs, o.SortBy); err != nil {
			return err
		}
	}
	if singleItem && len(objs) == 1 {
		return o.printer.PrintObj(asObject(objs[0]), o.streams.Out)
	}
	return o.printer.PrintObj(asList(objs), o.streams.Out)
}

// printTables prints the Tables of every result, a blank line between
// resource types, and reports how many bytes reached stdout.
func (o *getOptions) printTables(results []*fetched) (int, error) {
	counter := &countingWriter{w: o.streams.Out}
	sep := &separatorWriter{w: counter}
	tw := printers.GetNewTabWriter(sep)
	withKind := o.ShowKind || distinctMappings(results) > 1
	var p printers.ResourcePrinter
	var last *fetched
	for _, r := range results {
		if last == nil || last.ref.Mapping.Resource != r.ref.Mapping.Resource {
			if err := tw.Flush(); err != nil {
				return counter.n, err
			}
			tw.SetRememberedWidths(nil) // a new table begins
			if last != nil && !o.NoHeaders && counter.n > 0 {
				sep.ready = true
			}
			p = printers.NewTablePrinter(o.printOptions(r.ref, withKind))
			last = r
		}
		for _, t := range r.tables {
			if o.SortBy != "" {
				if err := sortTableRows(t, o.SortBy); err != nil {
					return counter.n, err
				}
			}
			if err := p.PrintObj(t, tw); err != nil {
				return counter.n, err
			}
		}
	}
	err := tw.Flush()
	return counter.n, err
}

// printOptions are the table printer's options; the EVENT column of
// --output-watch-events comes from printing watch events (asWatchEvent).
func (o *getOptions) printOptions(ref ResourceRef, withKind bool) printers.PrintOptions {
	return printers.PrintOptions{
		NoHeaders:     o.NoHeaders,
		Wide:          o.Output == "wide",
		WithNamespace: o.AllNamespaces && ref.Namespaced(),
		WithKind:      withKind,
		Kind:          ref.Mapping.GroupVersionKind.GroupKind(),
		ShowLabels:    o.ShowLabels,
		ColumnLabels:  o.LabelColumns,
	}
}

func distinctMappings(results []*fetched) int {
	seen := map[string]bool{}
	for _, r := range results {
		seen[r.ref.Mapping.GroupVersionKind.String()] = true
	}
	return len(seen)
}

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n int
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += n
	return n, err
}

// separatorWriter writes a blank line before the next output once ready.
type separatorWriter struct {
	w     io.Writer
	ready bool
}

func (s *separatorWriter) Write(p []byte) (int, error) {
	if s.ready && len(p) > 0 {
		if _, err := s.w.Write([]byte("\n")); err != nil {
			return 0, err
		}
		s.ready = false
	}
	return s.w.Write(p)
}
