package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"
)

func TestDiffCommand(t *testing.T) {
	for _, c := range []struct {
		external string
		name     string
		args     []string
	}{
		{"", "diff", []string{"-u", "-N", "A", "B"}},
		{"meld", "meld", []string{"A", "B"}},
		// Arguments follow the directories; only letters, digits, - and =
		// pass, so paths, quotes and shell syntax are dropped.
		{"colordiff -N  -u --color=always /etc/x $(id) 'q'", "colordiff", []string{"A", "B", "-N", "-u", "--color=always"}},
	} {
		name, args := diffCommand(c.external, "A", "B")
		if name != c.name || !reflect.DeepEqual(args, c.args) {
			t.Errorf("%q: got %s %q, want %s %q", c.external, name, args, c.name, c.args)
		}
	}
}

// script writes an executable shell script into dir.
func script(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRunDiffProgramExitStatus(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name, body string
		want       error
		wantMsg    string
	}{
		{"same", `echo "$1 $2"; exit 0`, nil, ""},
		{"differ", "exit 1", ErrExit, ""},
		{"fail", "exit 3", nil, `failed to run "` + filepath.Join(dir, "fail") + `": exit status 3`},
	} {
		prog := script(t, dir, c.name, c.body)
		var out, errOut bytes.Buffer
		err := runDiffProgram(context.Background(), genericiooptions.IOStreams{Out: &out, ErrOut: &errOut}, prog, "from", "to")
		switch {
		case c.wantMsg != "":
			if err == nil || err.Error() != c.wantMsg {
				t.Errorf("%s: err = %v, want %q", c.body, err, c.wantMsg)
			}
		case !errors.Is(err, c.want) || (c.want == nil && err != nil):
			t.Errorf("%s: err = %v, want %v", c.body, err, c.want)
		}
	}
	var out bytes.Buffer
	prog := script(t, dir, "echo", `echo "$@"`)
	if err := runDiffProgram(context.Background(), genericiooptions.IOStreams{Out: &out, ErrOut: &out}, prog+" -x", "from", "to"); err != nil || out.String() != "from to -x\n" {
		t.Errorf("program output %q, err %v", out.String(), err)
	}
}

func TestRunDiffProgramMissing(t *testing.T) {
	for _, prog := range []string{"no-such-diff-program-xyz", "/no/such/dir/diff"} {
		err := runDiffProgram(context.Background(), genericiooptions.IOStreams{Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}}, prog, "a", "b")
		want := `failed to run "` + prog + `": executable file not found in $PATH`
		if err == nil || err.Error() != want {
			t.Errorf("%s: err = %v, want %q", prog, err, want)
		}
	}
}

func TestUnvalidatedManifestError(t *testing.T) {
	_, err := decodeManifestStream(strings.NewReader("apiVersion: v1\nmetadata: {name: x}\n"), "f.yaml")
	if err == nil || !strings.HasPrefix(err.Error(), `error validating "f.yaml"`) {
		t.Fatalf("decode error = %v, want client-side validation's words", err)
	}
	want := `unable to decode "f.yaml": Object 'Kind' is missing in '{"apiVersion":"v1","metadata":{"name":"x"}}'`
	if got := unvalidatedManifestError(err); got.Error() != want {
		t.Errorf("unvalidated = %q, want %q", got, want)
	}
	other := errors.New("error parsing f.yaml: boom")
	if got := unvalidatedManifestError(other); got != other {
		t.Errorf("other errors must pass unchanged, got %v", got)
	}
}

func TestWithResourceVersion(t *testing.T) {
	got, err := withResourceVersion([]byte(`{"data":{"a":"1"}}`), "42")
	if err != nil || string(got) != `{"data":{"a":"1"},"metadata":{"resourceVersion":"42"}}` {
		t.Errorf("withResourceVersion = %s, %v", got, err)
	}
}
