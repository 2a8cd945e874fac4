package cli

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParseLiteralSource(t *testing.T) {
	for _, tc := range []struct {
		in, key, value, err string
	}{
		{in: "a=b", key: "a", value: "b"},
		{in: "a=b=c", key: "a", value: "b=c"},
		{in: "a=", key: "a", value: ""},
		{in: "=b", err: "invalid literal source =b, expected key=value"},
		{in: "nokey", err: "invalid literal source nokey, expected key=value"},
	} {
		k, v, err := parseLiteralSource(tc.in)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("%q: err %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || k != tc.key || v != tc.value {
			t.Errorf("%q: got %q %q %v", tc.in, k, v, err)
		}
	}
}

func TestParseFileSourceKeys(t *testing.T) {
	for _, tc := range []struct {
		in, key, path, err string
	}{
		{in: "dir/app.properties", key: "app.properties", path: "dir/app.properties"},
		{in: "/abs/x", key: "x", path: "/abs/x"},
		{in: "k=dir/file", key: "k", path: "dir/file"},
		{in: "=dir/file", err: "key name for file path dir/file missing"},
		{in: "k=", err: "file path for key name k missing"},
		{in: "a=b=c", err: "key names or file paths cannot contain '='"},
	} {
		k, p, err := parseFileSource(tc.in)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("%q: err %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || k != tc.key || p != tc.path {
			t.Errorf("%q: got %q %q %v", tc.in, k, p, err)
		}
	}
}

func TestReadFileSourceDirectory(t *testing.T) {
	dir := t.TempDir()
	for name, data := range map[string]string{"a": "1", "b.txt": "2"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	got, err := readFileSource(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []fileEntry{{"a", []byte("1")}, {"b.txt", []byte("2")}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v (subdirectories skipped)", got, want)
	}
	if _, err := readFileSource("k=" + dir); err == nil || err.Error() != "cannot give a key name for a directory path" {
		t.Errorf("keyed directory: %v", err)
	}
	if _, err := readFileSource(filepath.Join(dir, "none")); err == nil || !strings.HasSuffix(err.Error(), ": no such file or directory") {
		t.Errorf("missing file: %v", err)
	}
}

func TestEnvFileLines(t *testing.T) {
	t.Setenv("FROM_ENV", "inherited")
	for _, tc := range []struct {
		line       string
		n          int
		key, value string
		err        string
	}{
		{line: "\xef\xbb\xbfA=1", n: 0, key: "A", value: "1"},
		{line: "\xef\xbb\xbfA=1", n: 1, err: `"\ufeffA" is not a valid key name`},
		{line: "  B=two=2", key: "B", value: "two=2"},
		{line: "# comment"},
		{line: "   "},
		{line: "FROM_ENV", key: "FROM_ENV", value: "inherited"},
		{line: "1BAD=x", err: `"1BAD" is not a valid key name: a valid environment variable name must consist`},
		{line: "A=\xff", err: "env file f contains invalid utf8 bytes at line 1"},
	} {
		k, v, err := envFileLine([]byte(tc.line), "f", tc.n)
		if tc.err != "" {
			if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
				t.Errorf("%q: err %v, want prefix %q", tc.line, err, tc.err)
			}
			continue
		}
		if err != nil || k != tc.key || v != tc.value {
			t.Errorf("%q: got %q=%q %v", tc.line, k, v, err)
		}
	}
}

func TestConfigMapKeysAndBinaryData(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "blob")
	if err := os.WriteFile(bin, []byte{0xff, 0x00}, 0o644); err != nil {
		t.Fatal(err)
	}
	cm, err := newConfigMapObject("c", "", dataSources{Files: []string{bin}, Literals: []string{"a=1"}})
	if err != nil {
		t.Fatal(err)
	}
	if cm.Data["a"] != "1" || string(cm.BinaryData["blob"]) != "\xff\x00" || len(cm.Data) != 1 {
		t.Errorf("got data %v binary %v", cm.Data, cm.BinaryData)
	}
	_, err = newConfigMapObject("c", "", dataSources{Files: []string{bin}, Literals: []string{"blob=x"}})
	if want := `cannot add key "blob", another key by that name already exists in BinaryData for ConfigMap "c"`; err == nil || err.Error() != want {
		t.Errorf("duplicate key: %v", err)
	}
	s, err := newGenericSecret("s", "ns", "", dataSources{Literals: []string{"a=1"}, Files: []string{bin}})
	if err != nil || string(s.Data["a"]) != "1" || string(s.Data["blob"]) != "\xff\x00" || s.Namespace != "ns" {
		t.Errorf("secret: %+v %v", s, err)
	}
}

func TestDryRunValues(t *testing.T) {
	for in, want := range map[string]dryRunMode{"none": dryRunNone, "client": dryRunClient, "server": dryRunServer,
		"unchanged": dryRunClient, "true": dryRunClient, "false": dryRunNone} {
		var b strings.Builder
		g := generatorFlags{DryRun: in}
		got, err := g.dryRun(&b)
		if err != nil || got != want {
			t.Errorf("%q: got %v %v", in, got, err)
		}
	}
	g := generatorFlags{DryRun: "bogus"}
	if _, err := g.dryRun(&strings.Builder{}); err == nil || !strings.HasPrefix(err.Error(), "Invalid dry-run value (bogus)") {
		t.Errorf("bogus: %v", err)
	}
}
