package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/dynamic"
)

// stdinSource is how kubectl names objects read from `-f -` in its messages.
const stdinSource = "STDIN"

// manifestExtensions are the file endings kubectl reads from a directory.
var manifestExtensions = []string{".json", ".yaml", ".yml"}

// manifestDoc is one object read from a -f source, with the name of the file
// it came from so that errors can say "error when creating FILE".
type manifestDoc struct {
	Source string
	Obj    *unstructured.Unstructured
}

// manifestSet is the outcome of reading every -f argument: the objects that
// parsed, and one error per source that did not. kubectl carries on past a
// broken file and reports it after the objects it could handle.
type manifestSet struct {
	Docs []manifestDoc
	Errs []error
	// Order lists, in reading order, each document (index into Docs, >= 0)
	// and each error (-1 - index into Errs), so that errors can be reported
	// in the order kubectl meets them.
	Order []int
}

func (s *manifestSet) addDocs(docs []manifestDoc) {
	for _, d := range docs {
		s.Order = append(s.Order, len(s.Docs))
		s.Docs = append(s.Docs, d)
	}
}

func (s *manifestSet) addErr(err error) {
	s.Order = append(s.Order, -1-len(s.Errs))
	s.Errs = append(s.Errs, err)
}

// readManifests reads -f arguments the way kubectl does: "-" is standard
// input, a directory contributes its .json/.yaml/.yml files (all levels with
// recursive), and every file may hold several YAML documents or JSON objects.
// A path that does not exist is a hard error, reported before anything else.
func readManifests(paths []string, recursive bool, stdin io.Reader) (*manifestSet, error) {
	files, err := expandManifestPaths(paths, recursive)
	if err != nil {
		return nil, err
	}
	set := &manifestSet{}
	for _, f := range files {
		var r io.Reader
		source := f
		if f == "-" {
			r, source = stdin, stdinSource
		} else {
			b, err := os.ReadFile(f)
			if err != nil {
				set.addErr(err)
				continue
			}
			r = bytes.NewReader(b)
		}
		docs, err := decodeManifestStream(r, source)
		set.addDocs(docs)
		if err != nil {
			set.addErr(err)
		}
	}
	return set, nil
}

// expandManifestPaths turns -f arguments into the list of files to read, in
// kubectl's order (arguments in order, directory entries in lexical order).
func expandManifestPaths(paths []string, recursive bool) ([]string, error) {
	var files []string
	for _, p := range paths {
		if p == "-" {
			files = append(files, p)
			continue
		}
		info, err := os.Stat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("the path %q does not exist", p)
		}
		if err != nil {
			return nil, fmt.Errorf("the path %q cannot be accessed: %v", p, err)
		}
		if !info.IsDir() {
			files = append(files, p)
			continue
		}
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if path != p && !recursive {
					return filepath.SkipDir
				}
				return nil
			}
			if hasManifestExtension(path) {
				files = append(files, path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return files, nil
}

func hasManifestExtension(path string) bool {
	ext := filepath.Ext(path)
	for _, e := range manifestExtensions {
		if ext == e {
			return true
		}
	}
	return false
}

// decodeManifestStream splits a stream into objects. Empty documents are
// skipped; a List is flattened into its items, as kubectl does. The first
// syntax error ends the stream with kubectl's "error parsing FILE: ..." text.
func decodeManifestStream(r io.Reader, source string) ([]manifestDoc, error) {
	dec := utilyaml.NewYAMLOrJSONDecoder(r, 4096)
	var docs []manifestDoc
	for {
		var ext runtime.RawExtension
		if err := dec.Decode(&ext); err != nil {
			if err == io.EOF {
				return docs, nil
			}
			return docs, fmt.Errorf("error parsing %s: %v", source, err)
		}
		raw := bytes.TrimSpace(ext.Raw)
		if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
			continue
		}
		objs, err := decodeManifestObject(raw, source)
		if err != nil {
			return docs, err
		}
		for _, o := range objs {
			docs = append(docs, manifestDoc{Source: source, Obj: o})
		}
	}
}

// decodeManifestObject turns one JSON document into objects, flattening lists.
func decodeManifestObject(raw []byte, source string) ([]*unstructured.Unstructured, error) {
	obj, _, err := unstructured.UnstructuredJSONScheme.Decode(raw, nil, nil)
	if err != nil {
		return nil, manifestKindError(raw, source, err)
	}
	switch o := obj.(type) {
	case *unstructured.Unstructured:
		return []*unstructured.Unstructured{o}, nil
	case *unstructured.UnstructuredList:
		out := make([]*unstructured.Unstructured, 0, len(o.Items))
		for i := range o.Items {
			out = append(out, &o.Items[i])
		}
		return out, nil
	}
	return nil, fmt.Errorf("unable to decode %q: unexpected object %T", source, obj)
}

// undecodableManifest is a document the decoder refused. Its text is that of
// kubectl's client-side validation when apiVersion or kind is missing;
// commands without validation (diff) print the decoder's own words instead.
type undecodableManifest struct {
	validated error
	source    string
	err       error
}

func (u *undecodableManifest) Error() string { return u.validated.Error() }

// unvalidated is the message of kubectl's builder without a schema.
func (u *undecodableManifest) unvalidated() error {
	return fmt.Errorf("unable to decode %q: %v", u.source, u.err)
}

// manifestKindError words a document without apiVersion or kind as kubectl's
// client-side validation does.
func manifestKindError(raw []byte, source string, err error) error {
	return &undecodableManifest{validated: validatedKindError(raw, source, err), source: source, err: err}
}

func validatedKindError(raw []byte, source string, err error) error {
	var missing []string
	if !bytes.Contains(raw, []byte(`"apiVersion"`)) {
		missing = append(missing, "apiVersion not set")
	}
	if !bytes.Contains(raw, []byte(`"kind"`)) {
		missing = append(missing, "kind not set")
	}
	if len(missing) == 0 {
		return fmt.Errorf("unable to decode %q: %v", source, err)
	}
	return fmt.Errorf("error validating %q: error validating data: [%s]; if you choose to ignore these errors, turn validation off with --validate=false",
		source, strings.Join(missing, ", "))
}

// objectInfo is one object a write command works on: where it came from,
// how it maps to a REST resource, and (when known) its content.
type objectInfo struct {
	Source    string
	Mapping   *meta.RESTMapping
	Namespace string
	Name      string
	Obj       *unstructured.Unstructured
}

// namespaced reports whether the object lives in a namespace.
func (i *objectInfo) namespaced() bool {
	return i.Mapping.Scope.Name() == meta.RESTScopeNameNamespace
}

// client is the dynamic client for the object's resource and namespace.
func (i *objectInfo) client(dyn dynamic.Interface) dynamic.ResourceInterface {
	if i.namespaced() {
		return dyn.Resource(i.Mapping.Resource).Namespace(i.Namespace)
	}
	return dyn.Resource(i.Mapping.Resource)
}

// kindName is kubectl's "deployment.apps/web" (core kinds have no group).
func (i *objectInfo) kindName() string {
	return kindString(i.Mapping.GroupVersionKind.GroupKind()) + "/" + i.Name
}

// String is kubectl's resource.Info description used in some errors.
func (i *objectInfo) String() string {
	return fmt.Sprintf("Resource: %q, GroupVersionKind: %q\nName: %q, Namespace: %q",
		i.Mapping.Resource.String(), i.Mapping.GroupVersionKind.String(), i.Name, i.Namespace)
}

// addSourceToErr is kubectl's wording for a failure on an object from a file:
// API errors keep their reason and get `error when VERB "FILE": ` in front of
// the message; other errors become plain text.
func addSourceToErr(verb, source string, err error) error {
	if source == "" {
		return err
	}
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		s := status.Status()
		s.Message = fmt.Sprintf("error when %s %q: %v", verb, source, s.Message)
		return &apierrors.StatusError{ErrStatus: s}
	}
	return fmt.Errorf("error when %s %q: %v", verb, source, err)
}

// manifestTarget says where objects without a namespace go, and whether the
// user named that namespace explicitly (then a different one is an error).
type manifestTarget struct {
	Namespace string
	Enforce   bool
}

// mapManifests resolves every document to its REST mapping and namespace.
// Documents that fail are reported in kubectl's words and skipped; the rest
// are returned in order. Reading and mapping errors come back in the order
// they were met.
func mapManifests(mapper meta.RESTMapper, set *manifestSet, target manifestTarget) ([]*objectInfo, []error) {
	var infos []*objectInfo
	var errs []error
	for _, i := range set.Order {
		if i < 0 {
			errs = append(errs, set.Errs[-1-i])
			continue
		}
		info, err := mapManifest(mapper, set.Docs[i], target)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		infos = append(infos, info)
	}
	return infos, errs
}

func mapManifest(mapper meta.RESTMapper, d manifestDoc, target manifestTarget) (*objectInfo, error) {
	gvk := d.Obj.GroupVersionKind()
	m, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		if meta.IsNoMatchError(err) {
			return nil, fmt.Errorf("resource mapping not found for name: %q namespace: %q from %q: %v\nensure CRDs are installed first",
				d.Obj.GetName(), d.Obj.GetNamespace(), d.Source, err)
		}
		return nil, fmt.Errorf("unable to recognize %q: %v", d.Source, err)
	}
	info := &objectInfo{Source: d.Source, Mapping: m, Name: d.Obj.GetName(), Obj: d.Obj}
	if !info.namespaced() {
		d.Obj.SetNamespace("")
		return info, nil
	}
	ns := d.Obj.GetNamespace()
	switch {
	case ns == "":
		ns = target.Namespace
		d.Obj.SetNamespace(ns)
	case target.Enforce && ns != target.Namespace:
		//lint:ignore ST1005 kubectl's exact wording
		return nil, fmt.Errorf("the namespace from the provided object %q does not match the namespace %q. You must pass '--namespace=%s' to perform this operation.",
			ns, target.Namespace, ns)
	}
	info.Namespace = ns
	return info, nil
}
