package cli

import (
	"io"
	"testing"
)

// fuzzObject is a small Deployment list, as -o jsonpath and
// custom-columns see what the server answers.
var fuzzObject = map[string]any{
	"kind": "List", "apiVersion": "v1",
	"items": []any{map[string]any{
		"kind": "Deployment", "apiVersion": "apps/v1",
		"metadata": map[string]any{"name": "web", "labels": map[string]any{"app": "web"}},
		"spec":     map[string]any{"replicas": int64(3), "template": map[string]any{"spec": map[string]any{"containers": []any{map[string]any{"name": "nginx", "image": "nginx"}}}}},
	}},
}

// FuzzJSONPath: any -o jsonpath template either is refused or prints,
// never panics.
func FuzzJSONPath(f *testing.F) {
	for _, s := range []string{"{.items[*].metadata.name}", `{range .items[*]}{.metadata.name}{"\n"}{end}`, "{.items[?(@.spec.replicas>2)].metadata.name}", "{.items[-1:]}", "{{", "{.items[0].spec.template.spec.containers[*]['name','image']}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, tmpl string) {
		for _, format := range []string{"jsonpath=", "jsonpath-as-json="} {
			p, err := newObjectPrinter(format+tmpl, false)
			if err != nil {
				continue
			}
			_ = p.PrintObj(asObject(fuzzObject), io.Discard)
		}
	})
}

// FuzzCustomColumns: any -o custom-columns spec either is refused or
// prints, never panics.
func FuzzCustomColumns(f *testing.F) {
	for _, s := range []string{"NAME:.metadata.name,REPLICAS:.spec.replicas", "IMAGES:.spec.template.spec.containers[*].image", ":", "A:{.metadata.name}", "A:.items[?(@.x)]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		p, err := newObjectPrinter("custom-columns="+spec, false)
		if err != nil {
			return
		}
		_ = p.PrintObj(asObject(fuzzObject), io.Discard)
	})
}
