package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"github.com/liggitt/tabwriter"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/cli-runtime/pkg/printers"
	"k8s.io/client-go/rest"

	"github.com/miniapi/miniapi/pkg/journal"
)

// journalPath is where miniapi serves the controllers' reconcile journal
// (pkg/apiserver/journal.go).
const journalPath = "/miniapi/v1/journal"

// journalOptions are the flags of minictl journal.
type journalOptions struct {
	AllNamespaces bool
	Output        string
	Watch         bool
	streams       genericiooptions.IOStreams
}

// journalList is the server's answer: the selected passes, oldest first,
// and the newest sequence number to watch from.
type journalList struct {
	LastSeq uint64         `json:"lastSeq"`
	Items   []journal.Pass `json:"items"`
}

func newJournalCmd(f *Factory, streams genericiooptions.IOStreams) *cobra.Command {
	o := &journalOptions{streams: streams}
	cmd := &cobra.Command{
		Use:   "journal [TYPE/NAME | TYPE NAME | TYPE] [-n NS | -A] [-w] [-o json|yaml]",
		Short: "Show what the controllers decided, reconcile pass by reconcile pass",
		Long: "Show the reconcile passes the server's controllers made, oldest first: when, which controller,\n" +
			"the object, what it read as desired, what it observed and the action it chose.\n" +
			"Given an object, show the passes over it and over its children (a Deployment's ReplicaSets).\n" +
			"-w then prints each new pass as the controllers make it.\n" +
			"miniapi only: the journal is served at /miniapi/v1/journal and keeps the newest --journal-passes passes.",
		Example: "  minictl journal deploy/web\n  minictl journal -A\n  minictl journal deploy/web -w\n  minictl journal rs -n kube-system -o yaml",
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.Output != "" && o.Output != "json" && o.Output != "yaml" {
				return noCompatiblePrinterError(o.Output, []string{"json", "yaml"})
			}
			return o.run(cmd.Context(), f, args)
		},
	}
	fl := cmd.Flags()
	fl.BoolVarP(&o.AllNamespaces, "all-namespaces", "A", false, "If present, show the passes in all namespaces.")
	fl.StringVarP(&o.Output, "output", "o", "", "Output format. One of: (json, yaml).")
	fl.BoolVarP(&o.Watch, "watch", "w", false, "After printing the journal, print each new pass as it is made.")
	return cmd
}

func (o *journalOptions) run(ctx context.Context, f *Factory, args []string) error {
	query, err := o.query(f, args)
	if err != nil {
		return err
	}
	c, err := f.RawClient()
	if err != nil {
		return err
	}
	req := c.Get().AbsPath(journalPath).SetHeader("Accept", acceptJSON)
	for k, v := range query {
		req = req.Param(k, v)
	}
	body, err := doRaw(ctx, req)
	if err != nil {
		return err
	}
	var l journalList
	if err := json.Unmarshal(body, &l); err != nil {
		return fmt.Errorf("decoding the journal: %w", err)
	}
	p := &journalPrinter{output: o.Output, out: o.streams.Out, namespaces: o.AllNamespaces}
	if err := p.list(l.Items); err != nil || !o.Watch {
		return err
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	return followJournal(ctx, c, query, l.LastSeq, p.pass)
}

// query is the journal request's selection: the namespace (none for -A)
// and the object's kind and name.
func (o *journalOptions) query(f *Factory, args []string) (map[string]string, error) {
	q := map[string]string{}
	var ref *ResourceRef
	if len(args) > 0 {
		refs, err := f.ResolveArgs(args)
		if err != nil {
			return nil, err
		}
		if len(refs) != 1 {
			return nil, fmt.Errorf("journal shows the passes over one object or one type: give it as TYPE/NAME or TYPE (e.g. 'minictl journal deployment/web')")
		}
		ref = &refs[0]
		q["kind"] = ref.Mapping.GroupVersionKind.Kind
		if ref.Name != "" {
			q["name"] = ref.Name
		}
	}
	if o.AllNamespaces {
		if ref != nil && ref.Name != "" {
			return nil, fmt.Errorf("a resource cannot be retrieved by name across all namespaces")
		}
		return q, nil
	}
	ns, _, err := f.Namespace()
	if err != nil {
		return nil, err
	}
	if ref == nil || ref.Namespaced() {
		q["namespace"] = ns
	}
	return q, nil
}

// followJournal watches the journal from the pass after `after` and hands
// each new pass to print until ctx ends. A stream the server ends (its
// watch timeout) is opened again from the last pass seen.
func followJournal(ctx context.Context, c rest.Interface, query map[string]string, after uint64, print func(journal.Pass) error) error {
	for ctx.Err() == nil {
		req := c.Get().AbsPath(journalPath).SetHeader("Accept", acceptJSON).
			Param("watch", "true").Param("since", strconv.FormatUint(after, 10))
		for k, v := range query {
			req = req.Param(k, v)
		}
		stream, err := req.Stream(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		after, err = readJournalStream(stream, after, print)
		stream.Close()
		if err != nil && ctx.Err() == nil {
			return err
		}
	}
	return nil
}

// readJournalStream prints each event of one watch stream and returns the
// sequence number of the last pass printed.
func readJournalStream(r io.Reader, after uint64, print func(journal.Pass) error) (uint64, error) {
	lines := bufio.NewScanner(r)
	lines.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for lines.Scan() {
		var ev struct {
			Type   string       `json:"type"`
			Object journal.Pass `json:"object"`
		}
		if err := json.Unmarshal(lines.Bytes(), &ev); err != nil {
			return after, fmt.Errorf("decoding a journal event: %w", err)
		}
		if err := print(ev.Object); err != nil {
			return after, err
		}
		after = ev.Object.Seq
	}
	return after, lines.Err()
}

// journalPrinter prints passes as a table (rows printed later stay aligned
// with the header) or as JSON/YAML documents: the first list as a List,
// each pass that follows as one document.
type journalPrinter struct {
	output     string
	out        io.Writer
	namespaces bool // -A: a NAMESPACE column first
	tw         *tabwriter.Writer
	docs       printers.ResourcePrinter // -o json|yaml, made on first use
}

func (p *journalPrinter) list(items []journal.Pass) error {
	if p.output == "" {
		return p.rows(items)
	}
	docs := make([]map[string]any, 0, len(items))
	for _, it := range items {
		doc, err := journalDocument(it)
		if err != nil {
			return err
		}
		docs = append(docs, doc)
	}
	return p.document(map[string]any{"apiVersion": "v1", "kind": "List", "items": docs, "metadata": map[string]any{"resourceVersion": ""}})
}

func (p *journalPrinter) pass(it journal.Pass) error {
	if p.output == "" {
		return p.rows([]journal.Pass{it})
	}
	doc, err := journalDocument(it)
	if err != nil {
		return err
	}
	return p.document(doc)
}

func (p *journalPrinter) rows(items []journal.Pass) error {
	if p.tw == nil {
		p.tw = printers.GetNewTabWriter(p.out)
		if p.namespaces {
			fmt.Fprint(p.tw, "NAMESPACE\t")
		}
		fmt.Fprintln(p.tw, "TIME\tCONTROLLER\tOBJECT\tDESIRED\tOBSERVED\tACTION")
	}
	for _, it := range items {
		if p.namespaces {
			fmt.Fprintf(p.tw, "%s\t", orNone(it.Object.Namespace))
		}
		action := orNone(it.Action)
		if it.Error != "" {
			action += " (failed, will retry)" // -o yaml|json say why
		}
		fmt.Fprintf(p.tw, "%s\t%s\t%s\t%s\t%s\t%s\n", it.Time.Local().Format("15:04:05.000"), printers.EscapeTerminal(it.Controller),
			printers.EscapeTerminal(strings.ToLower(it.Object.Kind)+"/"+it.Object.Name),
			printers.EscapeTerminal(orNone(it.Desired)), printers.EscapeTerminal(orNone(it.Observed)), printers.EscapeTerminal(action))
	}
	return p.tw.Flush()
}

func (p *journalPrinter) document(v map[string]any) error {
	if p.docs == nil {
		p.docs = documentPrinter(p.output)
	}
	return printDocument(p.docs, v, p.out)
}

// journalDocument is a pass as -o json|yaml prints it: the server's fields.
func journalDocument(it journal.Pass) (map[string]any, error) {
	b, err := json.Marshal(it)
	if err != nil {
		return nil, err
	}
	var doc map[string]any
	return doc, json.Unmarshal(b, &doc)
}

func orNone(s string) string {
	if s == "" {
		return "<none>"
	}
	return s
}
