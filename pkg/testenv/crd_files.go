package testenv

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// crdFileExts are the file name endings read from a CRD path, as envtest
// reads them; every other file is skipped.
var crdFileExts = map[string]bool{".yaml": true, ".yml": true, ".json": true}

// readCRDPaths reads the CRDs in paths, each a directory (its files, not
// its subdirectories) or a single file, as envtest's CRDInstallOptions
// reads them: every YAML document or JSON object in a .yaml, .yml or
// .json file that is a CustomResourceDefinition naming a group and a kind
// is kept, and everything else (other kinds, other files) is skipped.
// Unlike envtest, a document of another kind is never decoded as a CRD,
// so its shape cannot fail the read. A path that does not exist is
// skipped unless errorIfMissing is set.
func readCRDPaths(paths []string, errorIfMissing bool) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	var crds []*apiextensionsv1.CustomResourceDefinition
	for _, path := range paths {
		files, err := crdFilesIn(path)
		if errors.Is(err, fs.ErrNotExist) && !errorIfMissing {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("testenv: CRD path: %w", err)
		}
		for _, file := range files {
			got, err := readCRDFile(file)
			if err != nil {
				return nil, fmt.Errorf("testenv: CRD file %s: %w", file, err)
			}
			crds = append(crds, got...)
		}
	}
	return crds, nil
}

// crdFilesIn lists the files to read for path: path itself if it is a
// file, else the files in it with a CRD file ending, in name order.
func crdFilesIn(path string) ([]string, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return []string{path}, nil
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, e := range entries {
		if !e.IsDir() && crdFileExts[filepath.Ext(e.Name())] {
			files = append(files, filepath.Join(path, e.Name()))
		}
	}
	return files, nil
}

// readCRDFile decodes every document in one file and keeps the CRDs.
func readCRDFile(file string) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var crds []*apiextensionsv1.CustomResourceDefinition
	for n := 1; ; n++ {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return crds, nil
		}
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", n, err)
		}
		var kind metav1.TypeMeta
		if err := yaml.Unmarshal(doc, &kind); err != nil {
			return nil, fmt.Errorf("document %d: %w", n, err)
		}
		if kind.Kind != "CustomResourceDefinition" {
			continue // not a CRD, whatever its shape: skipped, as envtest skips it
		}
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := yaml.Unmarshal(doc, crd); err != nil {
			return nil, fmt.Errorf("document %d: %w", n, err)
		}
		if crd.Spec.Group == "" || crd.Spec.Names.Kind == "" {
			continue // envtest skips these too
		}
		crds = append(crds, crd)
	}
}

// mergeCRDs returns the CRDs of every list, one per name: a later CRD of
// the same name replaces an earlier one in its place, as envtest keeps
// the last definition it reads.
func mergeCRDs(lists ...[]*apiextensionsv1.CustomResourceDefinition) []*apiextensionsv1.CustomResourceDefinition {
	var out []*apiextensionsv1.CustomResourceDefinition
	at := map[string]int{}
	for _, list := range lists {
		for _, crd := range list {
			if i, ok := at[crd.Name]; ok {
				out[i] = crd
				continue
			}
			at[crd.Name] = len(out)
			out = append(out, crd)
		}
	}
	return out
}
