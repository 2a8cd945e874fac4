package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/liggitt/tabwriter"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/cli-runtime/pkg/printers"
	"k8s.io/client-go/dynamic"
	watchtools "k8s.io/client-go/tools/watch"
)

// historyOptions are the flags of minictl history.
type historyOptions struct {
	Revision string
	Output   string
	Watch    bool
	streams  genericiooptions.IOStreams
}

// objectHistory is miniapi's answer at /miniapi/v1/history/...: the kept
// revisions of one object, oldest first (pkg/apiserver/objecthistory.go).
type objectHistory struct {
	Items []historyEntry `json:"items"`
}

type historyEntry struct {
	Revision    string          `json:"revision"`
	Time        string          `json:"time,omitempty"`
	Manager     string          `json:"manager"`
	Operation   string          `json:"operation,omitempty"`
	Subresource string          `json:"subresource,omitempty"`
	Changes     []string        `json:"changes"`
	Deleted     bool            `json:"deleted"`
	Object      json.RawMessage `json:"object"`
}

func newHistoryCmd(f *Factory, streams genericiooptions.IOStreams) *cobra.Command {
	o := &historyOptions{streams: streams}
	cmd := &cobra.Command{
		Use:   "history (TYPE/NAME | TYPE NAME) [--revision=RV] [-o yaml|json] [-w]",
		Short: "Show every kept revision of one object: who wrote it and what changed",
		Long: "Show every revision of one object that the server's watch history still keeps, oldest first:\n" +
			"its resourceVersion, its age, the field manager that wrote it and the fields that changed.\n" +
			"--revision prints the object as it was at that resourceVersion; -o yaml|json prints the whole history as a List;\n" +
			"-w then prints each new revision as it is written.\n" +
			"miniapi only: the history is served at /miniapi/v1/history/.",
		Example: "  minictl history deploy/web\n  minictl history deploy/web --revision=1234\n  minictl history cm my-config -n kube-system -o yaml\n  minictl history deploy/web -w",
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.Output != "" && o.Output != "json" && o.Output != "yaml" {
				return noCompatiblePrinterError(o.Output, []string{"json", "yaml"})
			}
			if o.Watch && o.Revision != "" {
				return fmt.Errorf("--revision prints one past revision and cannot be used with --watch")
			}
			if len(args) == 0 {
				fmt.Fprint(streams.ErrOut, "You must specify the object to show the history of, as TYPE/NAME. Use \"minictl api-resources\" for a complete list of supported resources.\n\n")
				return UsageErrorf(cmd, "Required resource not specified.")
			}
			return o.run(cmd.Context(), f, args)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.Revision, "revision", "", "Print the object as it was at this resourceVersion (a REVISION of the history).")
	fl.StringVarP(&o.Output, "output", "o", "", "Output format. One of: (json, yaml).")
	fl.BoolVarP(&o.Watch, "watch", "w", false, "After printing the history, watch the object and print each new revision as it is written.")
	return cmd
}

func (o *historyOptions) run(ctx context.Context, f *Factory, args []string) error {
	refs, err := f.ResolveArgs(args)
	if err != nil {
		return err
	}
	if len(refs) != 1 || refs[0].Name == "" {
		return fmt.Errorf("history shows one object: give it as TYPE/NAME (e.g. 'minictl history deployment/web')")
	}
	ref := refs[0]
	ns, _, err := f.Namespace()
	if err != nil {
		return err
	}
	c, err := f.RawClient()
	if err != nil {
		return err
	}
	fetch := func(ctx context.Context) (objectHistory, error) {
		var h objectHistory
		body, err := doRaw(ctx, c.Get().AbsPath(historyPath(ref, ns)).SetHeader("Accept", acceptJSON))
		if err != nil {
			return h, err
		}
		if err := json.Unmarshal(body, &h); err != nil {
			return h, fmt.Errorf("decoding the history: %w", err)
		}
		return h, nil
	}
	h, err := fetch(ctx)
	if err != nil {
		return err
	}
	if o.Revision != "" {
		return o.printRevision(h, ref)
	}
	p := &historyPrinter{output: o.Output, out: o.streams.Out, seen: map[string]bool{}}
	if err := p.print(h); err != nil || !o.Watch {
		return err
	}
	return o.follow(ctx, f, ref, ns, fetch, p)
}

// follow watches the object and, after each change, prints the revisions
// the history has gained, until Ctrl-C. The object may be deleted and
// created again meanwhile.
func (o *historyOptions) follow(ctx context.Context, f *Factory, ref ResourceRef, ns string,
	fetch func(context.Context) (objectHistory, error), p *historyPrinter) error {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	dyn, err := f.Dynamic()
	if err != nil {
		return err
	}
	var res dynamic.ResourceInterface = dyn.Resource(ref.Mapping.Resource)
	if ref.Namespaced() {
		res = dyn.Resource(ref.Mapping.Resource).Namespace(ns)
	}
	_, err = watchtools.UntilWithSync(ctx, nameListWatch(res, dyn, ref.Name), &unstructured.Unstructured{}, nil, func(watch.Event) (bool, error) {
		h, err := fetch(ctx)
		if err != nil {
			if ctx.Err() != nil || apierrors.IsNotFound(err) {
				return false, nil
			}
			return false, err
		}
		return false, p.print(h)
	})
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// historyPath is where miniapi serves the history of ref's object.
func historyPath(ref ResourceRef, namespace string) string {
	gvr := ref.Mapping.Resource
	group := gvr.Group
	if group == "" {
		group = "core"
	}
	if !ref.Namespaced() {
		namespace = "-"
	}
	return "/miniapi/v1/history/" + strings.Join([]string{
		url.PathEscape(group), url.PathEscape(gvr.Version), url.PathEscape(gvr.Resource),
		url.PathEscape(namespace), url.PathEscape(ref.Name)}, "/")
}

// printRevision prints one revision's object as get -o yaml (or json)
// prints an object.
func (o *historyOptions) printRevision(h objectHistory, ref ResourceRef) error {
	for _, it := range h.Items {
		if it.Revision != o.Revision {
			continue
		}
		obj, err := decodeObject(it.Object)
		if err != nil {
			return err
		}
		return printDocument(documentPrinter(o.Output), obj, o.streams.Out)
	}
	name := kindString(ref.Mapping.GroupVersionKind.GroupKind()) + "/" + ref.Name
	return fmt.Errorf("revision %s is not in the kept history of %s", o.Revision, name)
}

// historyPrinter prints a history, and then, for -w, the revisions it
// gains: table rows aligned with the first ones, or one document per
// revision for -o json|yaml after the first List.
type historyPrinter struct {
	output string
	out    io.Writer
	tw     *tabwriter.Writer
	docs   printers.ResourcePrinter // -o json|yaml, made on first use
	seen   map[string]bool          // revisions printed
}

func (p *historyPrinter) print(h objectHistory) error {
	first := p.tw == nil && len(p.seen) == 0
	var fresh []historyEntry
	for _, it := range h.Items {
		if !p.seen[it.Revision] {
			p.seen[it.Revision] = true
			fresh = append(fresh, it)
		}
	}
	switch {
	case p.output == "":
		if p.tw == nil {
			p.tw = printers.GetNewTabWriter(p.out)
			fmt.Fprintln(p.tw, "REVISION\tAGE\tMANAGER\tCHANGE")
		}
		writeHistoryRows(p.tw, fresh)
		return p.tw.Flush()
	case first:
		items, err := historyDocuments(fresh)
		if err != nil {
			return err
		}
		return p.document(map[string]any{"apiVersion": "v1", "kind": "List", "items": items, "metadata": map[string]any{"resourceVersion": ""}})
	}
	items, err := historyDocuments(fresh)
	for _, it := range items {
		if err != nil {
			break
		}
		err = p.document(it)
	}
	return err
}

func (p *historyPrinter) document(v map[string]any) error {
	if p.docs == nil {
		p.docs = documentPrinter(p.output)
	}
	return printDocument(p.docs, v, p.out)
}

// historyDocuments turns revisions into the items of -o json|yaml: the
// server's entries with their objects as get prints them (without
// managedFields).
func historyDocuments(entries []historyEntry) ([]map[string]any, error) {
	items := make([]map[string]any, 0, len(entries))
	for _, it := range entries {
		var doc map[string]any
		b, err := json.Marshal(it)
		if err == nil {
			err = json.Unmarshal(b, &doc)
		}
		if err != nil {
			return nil, err
		}
		obj, err := decodeObject(it.Object)
		if err != nil {
			return nil, err
		}
		doc["object"] = obj
		items = append(items, doc)
	}
	return items, nil
}

// writeHistoryRows writes one row per revision: REVISION, AGE, MANAGER
// and CHANGE.
func writeHistoryRows(w io.Writer, entries []historyEntry) {
	for _, it := range entries {
		change := strings.Join(it.Changes, ", ")
		if change == "" {
			change = "<none>"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", it.Revision, translateAge(it.Time), printers.EscapeTerminal(it.Manager), printers.EscapeTerminal(change))
	}
}
