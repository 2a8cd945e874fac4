package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"reflect"
	"regexp"
	"sort"
	"strings"

	"k8s.io/client-go/util/jsonpath"
	"sigs.k8s.io/yaml"
)

// objectPrinter prints whole objects (decoded JSON) for -o name, json,
// yaml, jsonpath and custom-columns. A list is a map with "kind": "List"
// and "items"; a watch event is passed as its type and object.
type objectPrinter interface {
	PrintObj(obj map[string]any, w io.Writer) error
	// PrintEvent prints one object that arrived in a watch event (for
	// --output-watch-events eventType is its type, else "").
	PrintEvent(eventType string, obj map[string]any, w io.Writer) error
}

// getOutputFormats are the -o values get accepts besides wide and the
// default table (kubectl also has go-template, which minictl lacks).
var getOutputFormats = []string{"custom-columns", "custom-columns-file", "json", "jsonpath", "jsonpath-as-json", "jsonpath-file", "name", "wide", "yaml"}

// noCompatiblePrinterError is kubectl's message for an unknown -o value.
func noCompatiblePrinterError(format string, allowed []string) error {
	a := append([]string(nil), allowed...)
	sort.Strings(a)
	return fmt.Errorf("unable to match a printer suitable for the output format %q, allowed formats are: %s", format, strings.Join(a, ","))
}

// newObjectPrinter builds the printer for -o output (not "" or "wide").
func newObjectPrinter(output string, noHeaders bool) (objectPrinter, error) {
	format, value, hasValue := strings.Cut(output, "=")
	switch format {
	case "name":
		return namePrinter{}, nil
	case "json":
		return &jsonPrinter{}, nil
	case "yaml":
		return &yamlPrinter{}, nil
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

// namePrinter prints "kind.group/name" per object ("pod/web-x" for the
// core group), for every item of a list.
type namePrinter struct{}

func (p namePrinter) PrintObj(obj map[string]any, w io.Writer) error {
	if items, ok := listItems(obj); ok {
		for _, it := range items {
			if err := p.PrintObj(it, w); err != nil {
				return err
			}
		}
		return nil
	}
	_, err := fmt.Fprintln(w, objectName(obj))
	return err
}

func (p namePrinter) PrintEvent(_ string, obj map[string]any, w io.Writer) error {
	return p.PrintObj(obj, w)
}

// objectName is kubectl's "kind.group/name" for a decoded object.
func objectName(obj map[string]any) string {
	apiVersion, _ := obj["apiVersion"].(string)
	kind, _ := obj["kind"].(string)
	md, _ := obj["metadata"].(map[string]any)
	name, _ := md["name"].(string)
	group := ""
	if i := strings.Index(apiVersion, "/"); i >= 0 {
		group = apiVersion[:i]
	}
	return ResourceString(group, kind, name)
}

// ResourceString is kubectl's name for an object in messages and -o name:
// "deployment.apps/web", or "pod/web-x" for the core group.
func ResourceString(group, kind, name string) string {
	k := strings.ToLower(kind)
	if group != "" {
		k += "." + group
	}
	return k + "/" + name
}

// jsonPrinter prints objects indented by four spaces, watch events as
// one compact line each.
type jsonPrinter struct{}

func (jsonPrinter) PrintObj(obj map[string]any, w io.Writer) error {
	data, err := json.MarshalIndent(obj, "", "    ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(data, '\n'))
	return err
}

func (p jsonPrinter) PrintEvent(eventType string, obj map[string]any, w io.Writer) error {
	if eventType == "" {
		return p.PrintObj(obj, w)
	}
	data, err := json.Marshal(map[string]any{"type": eventType, "object": obj})
	if err != nil {
		return err
	}
	_, err = w.Write(append(data, '\n'))
	return err
}

// yamlPrinter separates the second and later documents with "---".
type yamlPrinter struct{ count int }

func (p *yamlPrinter) PrintObj(obj map[string]any, w io.Writer) error {
	return p.print(obj, w)
}

func (p *yamlPrinter) PrintEvent(eventType string, obj map[string]any, w io.Writer) error {
	if eventType == "" {
		return p.print(obj, w)
	}
	data, err := yaml.Marshal(map[string]any{"type": eventType, "object": obj})
	if err != nil {
		return err
	}
	_, err = w.Write(data)
	return err
}

func (p *yamlPrinter) print(v any, w io.Writer) error {
	p.count++
	if p.count > 1 {
		if _, err := io.WriteString(w, "---\n"); err != nil {
			return err
		}
	}
	data, err := yaml.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(data)
	return err
}

// jsonPathPrinter runs a client-go jsonpath template with missing keys
// allowed, as kubectl does; it adds no newline of its own.
type jsonPathPrinter struct {
	raw string
	jp  *jsonpath.JSONPath
}

func newJSONPathPrinter(tmpl string, asJSON bool) (*jsonPathPrinter, error) {
	jp := jsonpath.New("out")
	if err := jp.Parse(tmpl); err != nil {
		return nil, fmt.Errorf("error parsing jsonpath %s, %v", tmpl, err)
	}
	jp.AllowMissingKeys(true)
	jp.EnableJSONOutput(asJSON)
	return &jsonPathPrinter{raw: tmpl, jp: jp}, nil
}

func (p *jsonPathPrinter) PrintObj(obj map[string]any, w io.Writer) error {
	if err := p.jp.Execute(w, obj); err != nil {
		return kubectlErrorf("error executing jsonpath %q: Error executing template: %v. Printing more information for debugging the template:\n\ttemplate was:\n\t\t%v\n\tobject given to jsonpath engine was:\n\t\t%#v\n\n", p.raw, err, p.raw, obj)
	}
	return nil
}

func (p *jsonPathPrinter) PrintEvent(eventType string, obj map[string]any, w io.Writer) error {
	if eventType == "" {
		return p.PrintObj(obj, w)
	}
	return p.PrintObj(map[string]any{"type": eventType, "object": obj}, w)
}

// customColumnsPrinter prints one row per object, each cell the comma-joined
// results of a jsonpath, "<none>" when there are none.
type customColumnsPrinter struct {
	headers       []string
	specs         []string
	noHeaders     bool
	printedHeader bool
}

var relaxedJSONPath = regexp.MustCompile(`^\{\.?([^{}]+)\}$|^\.?([^{}]+)$`)

// relaxedJSONPathExpression accepts "a.b", ".a.b", "{a.b}" and "{.a.b}"
// and returns "{.a.b}".
func relaxedJSONPathExpression(expr string) (string, error) {
	if expr == "" {
		return expr, nil
	}
	m := relaxedJSONPath.FindStringSubmatch(expr)
	if m == nil {
		return "", fmt.Errorf("unexpected path string, expected a 'name1.name2' or '.name1.name2' or '{name1.name2}' or '{.name1.name2}'")
	}
	if m[1] != "" {
		return "{." + m[1] + "}", nil
	}
	return "{." + m[2] + "}", nil
}

func customColumnsFromSpec(spec string, noHeaders bool) (*customColumnsPrinter, error) {
	p := &customColumnsPrinter{noHeaders: noHeaders}
	for _, part := range strings.Split(spec, ",") {
		header, path, ok := strings.Cut(part, ":")
		if !ok {
			return nil, fmt.Errorf("unexpected custom-columns spec: %s, expected <header>:<json-path-expr>", part)
		}
		expr, err := relaxedJSONPathExpression(path)
		if err != nil {
			return nil, err
		}
		p.headers, p.specs = append(p.headers, header), append(p.specs, expr)
	}
	return p, nil
}

func customColumnsFromTemplate(r io.Reader) (*customColumnsPrinter, error) {
	sc := bufio.NewScanner(r)
	if !sc.Scan() {
		return nil, kubectlErrorf("invalid template, missing header line. Expected format is one line of space separated headers, one line of space separated column specs.")
	}
	headers := strings.Fields(sc.Text())
	if !sc.Scan() {
		return nil, kubectlErrorf("invalid template, missing spec line. Expected format is one line of space separated headers, one line of space separated column specs.")
	}
	specs := strings.Fields(sc.Text())
	if len(headers) != len(specs) {
		return nil, fmt.Errorf("number of headers (%d) and field specifications (%d) don't match", len(headers), len(specs))
	}
	p := &customColumnsPrinter{headers: headers}
	for _, s := range specs {
		expr, err := relaxedJSONPathExpression(s)
		if err != nil {
			return nil, err
		}
		p.specs = append(p.specs, expr)
	}
	return p, nil
}

// PrintObj lays the columns out with kubectl's tab writer: the caller's
// (a watch keeps one for all events) or one of its own.
func (p *customColumnsPrinter) PrintObj(obj map[string]any, out io.Writer) error {
	w, ok := out.(*tabWriter)
	if !ok {
		w = newTabWriter(out)
		defer w.Flush()
	}
	if !p.noHeaders && !p.printedHeader {
		fmt.Fprintln(w, strings.Join(p.headers, "\t"))
		p.printedHeader = true
	}
	parsers := make([]*jsonpath.JSONPath, len(p.specs))
	for i, s := range p.specs {
		parsers[i] = jsonpath.New(fmt.Sprintf("column%d", i)).AllowMissingKeys(true)
		if err := parsers[i].Parse(s); err != nil {
			return err
		}
	}
	if items, ok := listItems(obj); ok {
		for _, it := range items {
			if err := p.printRow(it, parsers, w); err != nil {
				return err
			}
		}
		return nil
	}
	return p.printRow(obj, parsers, w)
}

func (p *customColumnsPrinter) PrintEvent(eventType string, obj map[string]any, w io.Writer) error {
	if eventType == "" {
		return p.PrintObj(obj, w)
	}
	return p.PrintObj(map[string]any{"type": eventType, "object": obj}, w)
}

func (p *customColumnsPrinter) printRow(obj map[string]any, parsers []*jsonpath.JSONPath, w io.Writer) error {
	cells := make([]string, len(parsers))
	for i, jp := range parsers {
		values, err := jp.FindResults(obj)
		if err != nil {
			return err
		}
		var vs []string
		if len(values) == 0 || len(values[0]) == 0 {
			vs = append(vs, "<none>")
		}
		for _, arr := range values {
			for _, v := range arr {
				vs = append(vs, escapeTerminal(fmt.Sprint(valueInterface(v))))
			}
		}
		cells[i] = strings.Join(vs, ",")
	}
	_, err := fmt.Fprintln(w, strings.Join(cells, "\t"))
	return err
}

func valueInterface(v reflect.Value) any {
	if !v.IsValid() {
		return nil
	}
	return v.Interface()
}

// listItems returns the items of a decoded list object.
func listItems(obj map[string]any) ([]map[string]any, bool) {
	raw, ok := obj["items"].([]any)
	if !ok {
		if _, isList := obj["items"]; !isList {
			return nil, false
		}
	}
	items := make([]map[string]any, 0, len(raw))
	for _, it := range raw {
		if m, ok := it.(map[string]any); ok {
			items = append(items, m)
		}
	}
	return items, true
}
