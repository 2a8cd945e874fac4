package cli

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"syscall"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

func TestPrintErrorWording(t *testing.T) {
	notFound := apierrors.NewNotFound(schema.GroupResource{Group: "apps", Resource: "deployments"}, "nope")
	podNotFound := apierrors.NewNotFound(schema.GroupResource{Resource: "pods"}, "nope")
	invalid := apierrors.NewInvalid(schema.GroupKind{Group: "apps", Kind: "Deployment"}, "bad", field.ErrorList{
		field.Required(field.NewPath("spec", "selector"), ""),
		field.Invalid(field.NewPath("spec", "replicas"), -1, "must be greater than or equal to 0"),
	})
	refused := &url.Error{Op: "Get", URL: "http://127.0.0.1:8080/api?timeout=32s", Err: fmt.Errorf("dial tcp 127.0.0.1:8080: connect: %w", syscall.ECONNREFUSED)}
	cases := []struct {
		err  error
		want string
		code int
	}{
		{notFound, "Error from server (NotFound): deployments.apps \"nope\" not found\n", 1},
		{podNotFound, "Error from server (NotFound): pods \"nope\" not found\n", 1},
		{&meta.NoResourceMatchError{PartialResource: schema.GroupVersionResource{Resource: "foo"}}, "error: the server doesn't have a resource type \"foo\"\n", 1},
		{invalid, "The Deployment \"bad\" is invalid: \n* spec.selector: Required value\n* spec.replicas: Invalid value: -1: must be greater than or equal to 0\n", 1},
		{refused, "The connection to the server 127.0.0.1:8080 was refused - did you specify the right host or port?\n", 1},
		{errors.New("Expected replicas to be 1, was 5"), "error: Expected replicas to be 1, was 5\n", 1},
		{utilerrors.NewAggregate([]error{notFound, podNotFound}), "Error from server (NotFound): deployments.apps \"nope\" not found\nError from server (NotFound): pods \"nope\" not found\n", 1},
		{utilerrors.NewAggregate([]error{notFound}), "Error from server (NotFound): deployments.apps \"nope\" not found\n", 1},
		{&apierrors.StatusError{ErrStatus: metav1.Status{Status: "Failure", Message: "boom"}}, "Error from server: boom\n", 1},
		{ErrExit, "", 1},
		{&ExitError{Code: 3}, "", 3},
	}
	for _, c := range cases {
		var b bytes.Buffer
		code := PrintError(&b, c.err)
		if b.String() != c.want || code != c.code {
			t.Errorf("%v:\ngot  %q (exit %d)\nwant %q (exit %d)", c.err, b.String(), code, c.want, c.code)
		}
	}
}

func TestExecuteRecoversFromPanics(t *testing.T) {
	var out, errOut bytes.Buffer
	// A nil In reader is fine; a nil Out would panic inside cobra's help.
	code := Execute([]string{"version", "--client"}, genericiooptions.IOStreams{Out: &out, ErrOut: &errOut})
	if code != 0 || out.String() != "Client Version: "+clientVersion+"\n" {
		t.Fatalf("version --client: exit %d, out %q, err %q", code, out.String(), errOut.String())
	}
	code = Execute([]string{"version", "--client"}, genericiooptions.IOStreams{ErrOut: &errOut})
	if code != 1 || !bytes.Contains(errOut.Bytes(), []byte("error: internal error:")) {
		t.Fatalf("panic not turned into an error: exit %d, err %q", code, errOut.String())
	}
}

func TestUnknownFlagWording(t *testing.T) {
	var out, errOut bytes.Buffer
	code := Execute([]string{"get", "--nope"}, genericiooptions.IOStreams{Out: &out, ErrOut: &errOut})
	if code != 1 || errOut.String() != "error: unknown flag: --nope\nSee 'minictl get --help' for usage.\n" {
		t.Fatalf("exit %d, stderr %q", code, errOut.String())
	}
}
