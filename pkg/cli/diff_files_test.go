package cli

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

const diffSecretLive = `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s","managedFields":[{"manager":"m"}]},
	"data":{"same":"YQ==","changed":"YQ==","gone":"YQ=="}}`
const diffSecretMerged = `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s","managedFields":[{"manager":"m"}]},
	"data":{"same":"YQ==","changed":"Yg==","added":"YQ=="}}`

func TestPrepareForDiffMasksSecretData(t *testing.T) {
	live, merged := mustUnstructured(t, diffSecretLive), mustUnstructured(t, diffSecretMerged)
	gotLive, gotMerged, masked := prepareForDiff(live, merged, diffOptions{})
	if !masked {
		t.Fatal("a v1 Secret was not masked")
	}
	wantLive := map[string]interface{}{"same": secretMask, "changed": secretMaskBefore, "gone": secretMask}
	wantMerged := map[string]interface{}{"same": secretMask, "changed": secretMaskAfter, "added": secretMask}
	if !reflect.DeepEqual(gotLive.Object["data"], wantLive) || !reflect.DeepEqual(gotMerged.Object["data"], wantMerged) {
		t.Errorf("masked data:\nlive   %v\nmerged %v", gotLive.Object["data"], gotMerged.Object["data"])
	}
	if gotLive.GetManagedFields() != nil || gotMerged.GetManagedFields() != nil {
		t.Error("managedFields were kept")
	}
	if live.Object["data"].(map[string]interface{})["same"] != "YQ==" || live.GetManagedFields() == nil {
		t.Error("the caller's object was changed")
	}
}

func TestPrepareForDiffShowFlags(t *testing.T) {
	live, merged := mustUnstructured(t, diffSecretLive), mustUnstructured(t, diffSecretMerged)
	gotLive, gotMerged, masked := prepareForDiff(live, merged, diffOptions{showSecrets: true, showManagedFields: true})
	if masked || !reflect.DeepEqual(gotLive.Object, live.Object) || !reflect.DeepEqual(gotMerged.Object, merged.Object) {
		t.Errorf("with --show-secrets --show-managed-fields the objects changed: masked=%v\n%v\n%v", masked, gotLive.Object, gotMerged.Object)
	}
}

func TestPrepareForDiffNewSecretAndOtherKinds(t *testing.T) {
	merged := mustUnstructured(t, diffSecretMerged)
	live, got, masked := prepareForDiff(nil, merged, diffOptions{})
	if live != nil || !masked || got.Object["data"].(map[string]interface{})["changed"] != secretMask {
		t.Errorf("new secret: live=%v masked=%v data=%v", live, masked, got.Object["data"])
	}
	cm := mustUnstructured(t, strings.Replace(diffSecretMerged, `"Secret"`, `"ConfigMap"`, 1))
	if _, got, masked := prepareForDiff(nil, cm, diffOptions{}); masked || got.Object["data"].(map[string]interface{})["changed"] != "Yg==" {
		t.Errorf("a ConfigMap was masked: %v", got.Object["data"])
	}
	other := mustUnstructured(t, strings.Replace(diffSecretMerged, `"v1"`, `"v2"`, 1))
	if _, _, masked := prepareForDiff(nil, other, diffOptions{}); masked {
		t.Error("a Secret of another version was masked")
	}
}

func TestWriteDiffFile(t *testing.T) {
	dir := t.TempDir()
	obj := mustUnstructured(t, `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a"},"data":{"k":"1"}}`)
	for _, c := range []struct {
		name      string
		obj       bool
		nilAsNull bool
		want      string
	}{
		{"obj", true, false, "apiVersion: v1\ndata:\n  k: \"1\"\nkind: ConfigMap\nmetadata:\n  name: a\n"},
		{"absent", false, false, ""},
		{"null", false, true, "null\n"},
	} {
		p := filepath.Join(dir, c.name)
		in := obj
		if !c.obj {
			in = nil
		}
		if err := writeDiffFile(p, in, c.nilAsNull); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(p)
		if err != nil || string(got) != c.want {
			t.Errorf("%s: file holds %q (%v), want %q", c.name, got, err, c.want)
		}
	}
}

func TestDiffDirsNamesAndRemoval(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	dirs, err := newDiffDirs()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(filepath.Base(dirs.live), "LIVE-") || !strings.HasPrefix(filepath.Base(dirs.merged), "MERGED-") {
		t.Errorf("directories %q %q are not named as kubectl's", dirs.live, dirs.merged)
	}
	merged := mustUnstructured(t, diffSecretMerged)
	if err := dirs.write("v1.Secret.ns.s", nil, merged, diffOptions{}); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dirs.live, "v1.Secret.ns.s")); err != nil || string(b) != "null\n" {
		t.Errorf("live file of a new secret: %q %v", b, err)
	}
	dirs.remove()
	for _, d := range []string{dirs.live, dirs.merged} {
		if _, err := os.Stat(d); !os.IsNotExist(err) {
			t.Errorf("%s still exists: %v", d, err)
		}
	}
}

func TestDiffObjectName(t *testing.T) {
	mapping := func(group, version, kind string, scope meta.RESTScope) *meta.RESTMapping {
		return &meta.RESTMapping{GroupVersionKind: schema.GroupVersionKind{Group: group, Version: version, Kind: kind}, Scope: scope}
	}
	for _, c := range []struct {
		info objectInfo
		want string
	}{
		{objectInfo{Mapping: mapping("", "v1", "ConfigMap", meta.RESTScopeNamespace), Namespace: "ns", Name: "a"}, "v1.ConfigMap.ns.a"},
		{objectInfo{Mapping: mapping("apps", "v1", "Deployment", meta.RESTScopeNamespace), Namespace: "ns", Name: "d"}, "apps.v1.Deployment.ns.d"},
		{objectInfo{Mapping: mapping("", "v1", "Namespace", meta.RESTScopeRoot), Name: "n"}, "v1.Namespace..n"},
	} {
		if got := diffObjectName(&c.info); got != c.want {
			t.Errorf("diffObjectName = %q, want %q", got, c.want)
		}
	}
}
