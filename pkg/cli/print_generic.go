package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/printers"
)

// getOutputFormats are the -o values get accepts besides wide and the
// default table (kubectl also has go-template, which minictl lacks).
var getOutputFormats = []string{"custom-columns", "custom-columns-file", "json", "jsonpath", "jsonpath-as-json", "jsonpath-file", "name", "wide", "yaml"}

// noCompatiblePrinterError is kubectl's message for an unknown -o value.
func noCompatiblePrinterError(format string, allowed []string) error {
	a := append([]string(nil), allowed...)
	sort.Strings(a)
	return fmt.Errorf("unable to match a printer suitable for the output format %q, allowed formats are: %s", format, strings.Join(a, ","))
}

// newObjectPrinter builds the printer for -o output (not "" or "wide"):
// cli-runtime's name, JSON, YAML and JSONPath printers, or our
// custom-columns printer (kubectl keeps that one outside cli-runtime too).
// The flag parsing around them is kubectl's, which lives in cli-runtime's
// genericclioptions (not imported, see doc.go).
func newObjectPrinter(output string, noHeaders bool) (printers.ResourcePrinter, error) {
	format, value, hasValue := strings.Cut(output, "=")
	switch format {
	case "name":
		return &printers.NamePrinter{}, nil
	case "json":
		return &printers.JSONPrinter{}, nil
	case "yaml":
		return &printers.YAMLPrinter{}, nil
	case "jsonpath", "jsonpath-file", "jsonpath-as-json":
		if !hasValue || value == "" {
			return nil, fmt.Errorf("template format specified but no template given")
		}
		if format == "jsonpath-file" {
			data, err := os.ReadFile(value)
			if err != nil {
				return nil, fmt.Errorf("error reading --template %s, %v", value, err)
			}
			value = string(data)
		}
		return newJSONPathPrinter(value, format == "jsonpath-as-json")
	case "custom-columns", "custom-columns-file":
		if !hasValue || value == "" {
			return nil, fmt.Errorf("custom-columns format specified but no custom columns given")
		}
		if format == "custom-columns-file" {
			f, err := os.Open(value)
			if err != nil {
				return nil, kubectlErrorf("error reading template %s, %v\n", value, err)
			}
			defer f.Close()
			return customColumnsFromTemplate(f)
		}
		return customColumnsFromSpec(value, noHeaders)
	}
	return nil, noCompatiblePrinterError(format, getOutputFormats)
}

// newJSONPathPrinter is cli-runtime's JSONPath printer set up as kubectl
// sets it up: missing keys print nothing.
func newJSONPathPrinter(tmpl string, asJSON bool) (printers.ResourcePrinter, error) {
	p, err := printers.NewJSONPathPrinter(tmpl)
	if err != nil {
		return nil, fmt.Errorf("error parsing jsonpath %s, %v", tmpl, err)
	}
	p.AllowMissingKeys(true)
	p.EnableJSONOutput(asJSON)
	return jsonPathPrinter{p, tmpl}, nil
}

// jsonPathPrinter turns a panic of client-go's template evaluation into
// the error kubectl prints when a template fails to execute: some
// templates that parse, such as "{range.}{[]0}", make it call a method of
// an empty reflect.Value (kubectl then crashes).
type jsonPathPrinter struct {
	*printers.JSONPathPrinter
	tmpl string
}

func (p jsonPathPrinter) PrintObj(obj runtime.Object, w io.Writer) (err error) {
	defer func() {
		if r := recover(); r != nil {
			//lint:ignore ST1005 kubectl's words, its newline included
			err = fmt.Errorf("error executing jsonpath %q: Error executing template: %v\n", p.tmpl, r)
		}
	}()
	return p.JSONPathPrinter.PrintObj(obj, w)
}

// omitManagedFields wraps the JSON and YAML printers, as kubectl's print
// flags do, so that they leave managedFields out unless show. The other
// formats, and watch events, see whole objects, as in kubectl.
func omitManagedFields(output string, show bool, p printers.ResourcePrinter) printers.ResourcePrinter {
	if show || (output != "json" && output != "yaml") {
		return p
	}
	return &printers.OmitManagedFieldsPrinter{Delegate: p}
}

// kindString is kubectl's lower-case kind with its group, the first half
// of "deployment.apps/web"; core kinds have no group ("pod").
func kindString(gk schema.GroupKind) string {
	k := strings.ToLower(gk.Kind)
	if gk.Group == "" {
		return k
	}
	return k + "." + gk.Group
}

// asObject wraps a decoded object for the printers: a list (a map with
// "items") as an UnstructuredList, anything else as an Unstructured.
func asObject(obj map[string]any) runtime.Object {
	if _, isList := obj["items"]; isList {
		list := &unstructured.UnstructuredList{}
		list.SetUnstructuredContent(obj)
		return list
	}
	return &unstructured.Unstructured{Object: obj}
}

// asList is the v1 List kubectl prints several objects as.
func asList(objs []map[string]any) *unstructured.UnstructuredList {
	list := &unstructured.UnstructuredList{Object: map[string]any{
		"apiVersion": "v1",
		"kind":       "List",
		"metadata":   map[string]any{"resourceVersion": ""},
	}}
	for _, o := range objs {
		list.Items = append(list.Items, unstructured.Unstructured{Object: o})
	}
	return list
}

// asDocument wraps a value that is no API object (it has no kind, so the
// printers would refuse it) as raw JSON, which the JSON and YAML printers
// print as it is.
func asDocument(v any) (runtime.Object, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return &runtime.Unknown{Raw: data}, nil
}

// documentPrinter is the printer of minictl's own -o json|yaml documents
// (history, journal). Keep one per run: YAML documents after the first
// start with "---".
func documentPrinter(output string) printers.ResourcePrinter {
	if output == "json" {
		return &printers.JSONPrinter{}
	}
	return &printers.YAMLPrinter{}
}

// printDocument prints v, which need not be an API object, with p.
func printDocument(p printers.ResourcePrinter, v any, w io.Writer) error {
	obj, err := asDocument(v)
	if err != nil {
		return err
	}
	return p.PrintObj(obj, w)
}

// asWatchEvent is what kubectl prints for an object that arrived in a
// watch: with --output-watch-events (eventType set) the event itself,
// otherwise the object.
func asWatchEvent(eventType string, obj runtime.Object) runtime.Object {
	if eventType == "" {
		return obj
	}
	return &metav1.WatchEvent{Type: eventType, Object: runtime.RawExtension{Object: obj}}
}
