package cli

import (
	"context"
	"slices"
	"sort"
	"strings"
	"unicode"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
)

// genericDescriber is kubectl's description of a kind it has no layout
// for (a Lease, an events.k8s.io Event, a custom resource): name, labels
// and annotations, then every field of the object with camel-case names
// spelled out ("holderIdentity" reads "Holder Identity").
func genericDescriber(dyn dynamic.Interface, mapping *meta.RESTMapping) describer {
	return func(ctx context.Context, cs kubernetes.Interface, ns, name string, showEvents bool) (string, error) {
		var client dynamic.ResourceInterface = dyn.Resource(mapping.Resource)
		if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
			client = dyn.Resource(mapping.Resource).Namespace(ns)
		}
		obj, err := client.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return "", err
		}
		var events *corev1.EventList
		if showEvents {
			events, _ = searchEvents(ctx, cs, obj.GetKind(), obj)
		}
		return tabbed(func(w *describeWriter) {
			w.write(0, "Name:\t%s\n", obj.GetName())
			w.write(0, "Namespace:\t%s\n", obj.GetNamespace())
			printLabels(w, "Labels", obj.GetLabels())
			printAnnotations(w, "Annotations", obj.GetAnnotations())
			describeFields(w, 0, obj.UnstructuredContent(), "")
			describeEvents(w, events)
		}), nil
	}
}

// genericSkipped are the fields the header has shown already, or that
// kubectl leaves out.
var genericSkipped = []string{".metadata.managedFields", ".metadata.name",
	".metadata.namespace", ".metadata.labels", ".metadata.annotations"}

// describeFields writes the fields of content in name order: a map as a
// titled block one level in, a list as its items, a scalar as "Label:\tvalue".
func describeFields(w *describeWriter, level int, content map[string]interface{}, path string) {
	fields := make([]string, 0, len(content))
	for f := range content {
		fields = append(fields, f)
	}
	sort.Strings(fields)
	for _, f := range fields {
		here := path + "." + f
		if slices.Contains(genericSkipped, here) {
			continue
		}
		switch v := content[f].(type) {
		case map[string]interface{}:
			w.write(level, "%s:\n", fieldLabel(f))
			describeFields(w, level+1, v, here)
		case []interface{}:
			w.write(level, "%s:\n", fieldLabel(f))
			for _, item := range v {
				if m, ok := item.(map[string]interface{}); ok {
					describeFields(w, level+1, m, here)
				} else {
					w.write(level+1, "%v\n", item)
				}
			}
		default:
			w.write(level, "%s:\t%v\n", fieldLabel(f), v)
		}
	}
}

// fieldLabel spells a camel-case field name as words, as kubectl does:
// "resourceVersion" is "Resource Version", "uid" is "UID"; a run of two or
// more capitals stays joined to the capitalised word after it. Names with
// characters other than letters and '-' stay as they are.
func fieldLabel(field string) string {
	if strings.IndexFunc(field, func(r rune) bool { return !unicode.IsLetter(r) && r != '-' }) != -1 {
		return field
	}
	parts := camelWords(field)
	var merged []string
	for i := 0; i < len(parts); i++ {
		p := parts[i]
		if i+1 < len(parts) && len(p) >= 2 && isUpperWord(p) && startsUpper(parts[i+1]) {
			merged = append(merged, p+parts[i+1])
			i++
			continue
		}
		merged = append(merged, p)
	}
	words := make([]string, 0, len(merged))
	for _, p := range merged {
		switch up := strings.ToUpper(p); {
		case p == "_":
			continue
		case up == "API" || up == "URL" || up == "UID" || up == "GUID":
			p = up
		case strings.ToLower(p) == p:
			p = titleWord(p)
		}
		words = append(words, p)
	}
	return strings.Join(words, " ")
}

func isUpperWord(s string) bool {
	for _, r := range s {
		if unicode.IsLetter(r) && !unicode.IsUpper(r) {
			return false
		}
	}
	return true
}

func startsUpper(s string) bool {
	return s != "" && unicode.IsUpper(rune(s[0]))
}

// titleWord capitalises the first letter of a lower-case word.
func titleWord(s string) string {
	r := []rune(s)
	r[0] = unicode.ToUpper(r[0])
	return string(r)
}

// camelWords splits s where the kind of character changes (lower case,
// upper case, digit, other), and gives the last capital of an upper-case
// run to the lower-case run after it: "holderIdentity" is "holder",
// "Identity"; "podIPs" is "pod", "I", "Ps".
func camelWords(s string) []string {
	class := func(r rune) int {
		switch {
		case unicode.IsLower(r):
			return 1
		case unicode.IsUpper(r):
			return 2
		case unicode.IsDigit(r):
			return 3
		}
		return 4
	}
	var runs [][]rune
	last := 0
	for _, r := range s {
		c := class(r)
		if c == last && len(runs) > 0 {
			runs[len(runs)-1] = append(runs[len(runs)-1], r)
		} else {
			runs = append(runs, []rune{r})
		}
		last = c
	}
	for i := 0; i+1 < len(runs); i++ {
		if len(runs[i]) > 0 && unicode.IsUpper(runs[i][0]) && unicode.IsLower(runs[i+1][0]) {
			moved := runs[i][len(runs[i])-1]
			runs[i+1] = append([]rune{moved}, runs[i+1]...)
			runs[i] = runs[i][:len(runs[i])-1]
		}
	}
	words := make([]string, 0, len(runs))
	for _, r := range runs {
		if len(r) > 0 {
			words = append(words, string(r))
		}
	}
	return words
}
