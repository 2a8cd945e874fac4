package cli

import (
	"bufio"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"strings"

	"github.com/liggitt/tabwriter"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/printers"
	"k8s.io/client-go/util/jsonpath"
)

// customColumnsPrinter prints one row per object, each cell the comma-joined
// results of a jsonpath, "<none>" when there are none. kubectl keeps this
// printer in kubectl itself, not in cli-runtime, so it is ours too.
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
func (p *customColumnsPrinter) PrintObj(obj runtime.Object, out io.Writer) error {
	w, ok := out.(*tabwriter.Writer)
	if !ok {
		w = printers.GetNewTabWriter(out)
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
	if list, ok := obj.(*unstructured.UnstructuredList); ok {
		for _, it := range list.Items {
			if err := p.printRow(it.Object, parsers, w); err != nil {
				return err
			}
		}
		return nil
	}
	content, err := columnsContent(obj)
	if err != nil {
		return err
	}
	return p.printRow(content, parsers, w)
}

// columnsContent is what the column paths are evaluated on: the object's
// fields, or for a watch event its "type" and "object".
func columnsContent(obj runtime.Object) (map[string]any, error) {
	switch o := obj.(type) {
	case *metav1.WatchEvent:
		inner, err := columnsContent(o.Object.Object)
		if err != nil {
			return nil, err
		}
		return map[string]any{"type": o.Type, "object": inner}, nil
	case runtime.Unstructured:
		return o.UnstructuredContent(), nil
	}
	return runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
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
				vs = append(vs, printers.EscapeTerminal(fmt.Sprint(valueInterface(v))))
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
