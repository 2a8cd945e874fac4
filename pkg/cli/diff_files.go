package cli

import (
	"os"
	"path/filepath"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// The names of diff's two directories, which the diff program prints: the
// live objects, and the objects as they would be after apply.
const (
	diffLiveName   = "LIVE"
	diffMergedName = "MERGED"
)

// The masks diff puts over a Secret's data, as kubectl does; a value that
// changes gets "(before)" and "(after)" so the diff still shows it.
const (
	secretMask       = "***"
	secretMaskBefore = "*** (before)"
	secretMaskAfter  = "*** (after)"
)

// diffDirs are the two temporary directories the diff program compares:
// one file per object in each, under the same name.
type diffDirs struct {
	live, merged string
}

// newDiffDirs creates LIVE-<random> and MERGED-<random> in the temporary
// directory, named as kubectl names them.
func newDiffDirs() (*diffDirs, error) {
	live, err := os.MkdirTemp("", diffLiveName+"-")
	if err != nil {
		return nil, err
	}
	merged, err := os.MkdirTemp("", diffMergedName+"-")
	if err != nil {
		os.RemoveAll(live)
		return nil, err
	}
	return &diffDirs{live: live, merged: merged}, nil
}

func (d *diffDirs) remove() {
	os.RemoveAll(d.live)
	os.RemoveAll(d.merged)
}

// diffOptions are diff's choices of what to compare and show.
type diffOptions struct {
	selector          string // -l: only objects whose labels match
	showManagedFields bool
	showSecrets       bool
}

// write puts both versions of one object into the directories. live is nil
// for an object that does not exist yet; its file is then empty.
func (d *diffDirs) write(name string, live, merged *unstructured.Unstructured, opts diffOptions) error {
	live, merged, masked := prepareForDiff(live, merged, opts)
	// kubectl's Secret masking turns a missing live object into a typed
	// nil, which its printer writes as "null" rather than nothing.
	if err := writeDiffFile(filepath.Join(d.live, name), live, masked); err != nil {
		return err
	}
	return writeDiffFile(filepath.Join(d.merged, name), merged, masked)
}

// prepareForDiff returns copies of both versions with managedFields removed
// (unless asked for) and, for a v1 Secret, data masked; masked says whether
// it did that.
func prepareForDiff(live, merged *unstructured.Unstructured, opts diffOptions) (_, _ *unstructured.Unstructured, masked bool) {
	if live != nil {
		live = live.DeepCopy()
	}
	merged = merged.DeepCopy()
	if !opts.showManagedFields {
		if live != nil {
			live.SetManagedFields(nil)
		}
		merged.SetManagedFields(nil)
	}
	if gvk := merged.GroupVersionKind(); !opts.showSecrets && gvk.Version == "v1" && gvk.Kind == "Secret" {
		maskSecretData(live, merged)
		masked = true
	}
	return live, merged, masked
}

// maskSecretData hides the values of data in both versions. A key whose
// value differs is masked differently on each side so that the diff still
// shows the change; equal values get the same mask.
func maskSecretData(from, to *unstructured.Unstructured) {
	before, after := secretData(from), secretData(to)
	for k, v := range before {
		w, inBoth := after[k]
		switch {
		case inBoth && v != w:
			before[k], after[k] = secretMaskBefore, secretMaskAfter
		case inBoth:
			before[k], after[k] = secretMask, secretMask
		default:
			before[k] = secretMask
		}
	}
	for k := range after {
		if _, ok := before[k]; !ok {
			after[k] = secretMask
		}
	}
	if before != nil {
		from.Object["data"] = before
	}
	if after != nil {
		to.Object["data"] = after
	}
}

// secretData is obj's data map, or nil when there is none.
func secretData(obj *unstructured.Unstructured) map[string]interface{} {
	if obj == nil {
		return nil
	}
	data, ok := obj.Object["data"].(map[string]interface{})
	if !ok {
		return nil
	}
	return data
}

// writeDiffFile writes obj as YAML. A nil obj leaves the file empty, which
// diff -N reads as an absent file, or with nilAsNull holds "null".
func writeDiffFile(path string, obj *unstructured.Unstructured, nilAsNull bool) error {
	var data []byte
	switch {
	case obj != nil:
		var err error
		if data, err = yaml.Marshal(obj); err != nil {
			return err
		}
	case nilAsNull:
		data = []byte("null\n")
	}
	return os.WriteFile(path, data, 0o700)
}
