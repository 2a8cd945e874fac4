package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"strings"

	"github.com/spf13/cobra"
)

// historyOptions are the flags of minictl history.
type historyOptions struct {
	Revision string
	Output   string
	streams  IOStreams
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

func newHistoryCmd(f *Factory, streams IOStreams) *cobra.Command {
	o := &historyOptions{streams: streams}
	cmd := &cobra.Command{
		Use:   "history (TYPE/NAME | TYPE NAME) [--revision=RV] [-o yaml|json]",
		Short: "Show every kept revision of one object: who wrote it and what changed",
		Long: "Show every revision of one object that the server's watch history still keeps, oldest first:\n" +
			"its resourceVersion, its age, the field manager that wrote it and the fields that changed.\n" +
			"--revision prints the object as it was at that resourceVersion; -o yaml|json prints the whole history as a List.\n" +
			"miniapi only: the history is served at /miniapi/v1/history/.",
		Example: "  minictl history deploy/web\n  minictl history deploy/web --revision=1234\n  minictl history cm my-config -n kube-system -o yaml",
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.Output != "" && o.Output != "json" && o.Output != "yaml" {
				return noCompatiblePrinterError(o.Output, []string{"json", "yaml"})
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
	body, err := doRaw(ctx, c.Get().AbsPath(historyPath(ref, ns)).SetHeader("Accept", acceptJSON))
	if err != nil {
		return err
	}
	var h objectHistory
	if err := json.Unmarshal(body, &h); err != nil {
		return fmt.Errorf("decoding the history: %w", err)
	}
	if o.Revision != "" {
		return o.printRevision(h, ref)
	}
	if o.Output != "" {
		return o.printList(h)
	}
	return printHistoryTable(o.streams.Out, h)
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
		if o.Output == "json" {
			return jsonPrinter{}.PrintObj(obj, o.streams.Out)
		}
		return (&yamlPrinter{}).PrintObj(obj, o.streams.Out)
	}
	name := ResourceString(ref.Mapping.GroupVersionKind.Group, ref.Mapping.GroupVersionKind.Kind, ref.Name)
	return fmt.Errorf("revision %s is not in the kept history of %s", o.Revision, name)
}

// printList prints the whole history as a kubectl List whose items are
// the revisions (their objects without managedFields, as get prints).
func (o *historyOptions) printList(h objectHistory) error {
	items := make([]any, 0, len(h.Items))
	for _, it := range h.Items {
		var entry map[string]any
		b, err := json.Marshal(it)
		if err == nil {
			err = json.Unmarshal(b, &entry)
		}
		if err != nil {
			return err
		}
		obj, err := decodeObject(it.Object)
		if err != nil {
			return err
		}
		entry["object"] = obj
		items = append(items, entry)
	}
	list := map[string]any{"apiVersion": "v1", "kind": "List", "items": items, "metadata": map[string]any{"resourceVersion": ""}}
	if o.Output == "json" {
		return jsonPrinter{}.PrintObj(list, o.streams.Out)
	}
	return (&yamlPrinter{}).PrintObj(list, o.streams.Out)
}

// printHistoryTable prints one row per revision: REVISION, AGE, MANAGER
// and CHANGE.
func printHistoryTable(out io.Writer, h objectHistory) error {
	tw := newTabWriter(out)
	fmt.Fprintln(tw, "REVISION\tAGE\tMANAGER\tCHANGE")
	for _, it := range h.Items {
		change := strings.Join(it.Changes, ", ")
		if change == "" {
			change = "<none>"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", it.Revision, translateAge(it.Time), escapeTerminal(it.Manager), escapeTerminal(change))
	}
	return tw.Flush()
}
