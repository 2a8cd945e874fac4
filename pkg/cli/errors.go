package cli

import (
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/client-go/tools/clientcmd"
)

// ErrExit ends a command with status 1 and prints nothing more (the
// command has already said what went wrong).
var ErrExit = errors.New("exit")

// ExitError ends a command with Code, printing Err (if any) first.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit status %d", e.Code)
	}
	return e.Err.Error()
}

func (e *ExitError) Unwrap() error { return e.Err }

// kubectlError is an error worded exactly as kubectl words it, capitals,
// punctuation and newlines included (which Go's error-string conventions
// would otherwise forbid).
type kubectlError string

func (e kubectlError) Error() string { return string(e) }

// kubectlErrorf formats a kubectlError.
func kubectlErrorf(format string, args ...any) error {
	return kubectlError(fmt.Sprintf(format, args...))
}

// UsageErrorf is a command-line usage error, printed with kubectl's hint
// "See 'minictl get --help' for usage.".
func UsageErrorf(cmd *cobra.Command, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	return fmt.Errorf("%s\nSee '%s -h' for help and examples", msg, cmd.CommandPath())
}

// PrintError writes err to w in kubectl's words and returns the exit
// status: "Error from server (NotFound): ..." for API errors, "error: ..."
// for everything else, "The connection to the server ... was refused" for
// an unreachable server, one line per error for aggregates.
func PrintError(w io.Writer, err error) int {
	if agg, ok := err.(utilerrors.Aggregate); ok && len(agg.Errors()) == 1 {
		err = agg.Errors()[0]
	}
	if err == nil {
		return 0
	}
	code := 1
	var exit *ExitError
	if errors.As(err, &exit) {
		code = exit.Code
		if exit.Err == nil {
			return code
		}
		err = exit.Err
	}
	if errors.Is(err, ErrExit) {
		return code
	}
	msg := ErrorMessage(err)
	if msg != "" && !strings.HasSuffix(msg, "\n") {
		msg += "\n"
	}
	fmt.Fprint(w, msg)
	return code
}

// ErrorMessage is the text kubectl prints for err (without a guaranteed
// trailing newline).
func ErrorMessage(err error) string {
	if agg, ok := err.(utilerrors.Aggregate); ok && len(agg.Errors()) == 1 {
		err = agg.Errors()[0]
	}
	var noMatch *meta.NoResourceMatchError
	switch {
	case apierrors.IsInvalid(err):
		return invalidMessage(err)
	case clientcmd.IsConfigurationInvalid(err):
		return multilineError("Error in configuration: ", err)
	case errors.As(err, &noMatch):
		return noMatchMessage(noMatch)
	}
	if agg, ok := err.(utilerrors.Aggregate); ok {
		var b strings.Builder
		for _, e := range agg.Errors() {
			fmt.Fprintf(&b, "%s\n", messageForError(e))
		}
		return b.String()
	}
	if msg, ok := standardErrorMessage(err); ok {
		return msg
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "error: ") {
		msg = "error: " + msg
	}
	return msg
}

func noMatchMessage(err *meta.NoResourceMatchError) string {
	r := err.PartialResource
	switch {
	case r.Group != "" && r.Version != "":
		return fmt.Sprintf("error: the server doesn't have a resource type %q in group %q and version %q", r.Resource, r.Group, r.Version)
	case r.Group != "":
		return fmt.Sprintf("error: the server doesn't have a resource type %q in group %q", r.Resource, r.Group)
	case r.Version != "":
		return fmt.Sprintf("error: the server doesn't have a resource type %q in version %q", r.Resource, r.Version)
	}
	return fmt.Sprintf("error: the server doesn't have a resource type %q", r.Resource)
}

// invalidMessage prints a 422 as `The Deployment "x" is invalid: ` followed
// by one `* field: message` line per cause.
func invalidMessage(err error) string {
	var se apierrors.APIStatus
	errors.As(err, &se)
	status := se.Status()
	details := status.Details
	s := "The request is invalid"
	if details == nil {
		if status.Message != "" {
			s += ": " + status.Message
		}
		return s
	}
	if details.Kind != "" || details.Name != "" {
		s = fmt.Sprintf("The %s %q is invalid", details.Kind, details.Name)
	} else if status.Message != "" && len(details.Causes) == 0 {
		s += ": " + status.Message
	}
	if len(details.Causes) == 0 {
		return s
	}
	var causes []error
	for _, c := range details.Causes {
		causes = append(causes, causeError(c))
	}
	return multilineError(s+": ", utilerrors.NewAggregate(causes))
}

func causeError(c metav1.StatusCause) error {
	if c.Field == "" {
		return errors.New(c.Message)
	}
	return fmt.Errorf("%s: %s", c.Field, c.Message)
}

func multilineError(prefix string, err error) string {
	if agg, ok := err.(utilerrors.Aggregate); ok {
		errs := utilerrors.Flatten(agg).Errors()
		switch len(errs) {
		case 0:
			return fmt.Sprintf("%s%v\n", prefix, err)
		case 1:
			return fmt.Sprintf("%s%v\n", prefix, messageForError(errs[0]))
		}
		var b strings.Builder
		fmt.Fprintln(&b, prefix)
		for _, e := range errs {
			fmt.Fprintf(&b, "* %v\n", messageForError(e))
		}
		return b.String()
	}
	return fmt.Sprintf("%s%s\n", prefix, err)
}

func messageForError(err error) string {
	if msg, ok := standardErrorMessage(err); ok {
		return msg
	}
	return err.Error()
}

// standardErrorMessage words API and connection errors as kubectl does.
func standardErrorMessage(err error) (string, bool) {
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		s := status.Status()
		switch {
		case s.Reason == metav1.StatusReasonUnauthorized:
			return fmt.Sprintf("error: You must be logged in to the server (%s)", s.Message), true
		case s.Reason != "":
			return fmt.Sprintf("Error from server (%s): %s", s.Reason, err.Error()), true
		default:
			return fmt.Sprintf("Error from server: %s", err.Error()), true
		}
	}
	if apierrors.IsUnexpectedObjectError(err) {
		return fmt.Sprintf("Server returned an unexpected response: %s", err.Error()), true
	}
	var uerr *url.Error
	if errors.As(err, &uerr) {
		if strings.Contains(uerr.Err.Error(), "connection refused") {
			host := uerr.URL
			if u, perr := url.Parse(uerr.URL); perr == nil {
				host = u.Host
			}
			return fmt.Sprintf("The connection to the server %s was refused - did you specify the right host or port?", host), true
		}
		return fmt.Sprintf("Unable to connect to the server: %v", uerr.Err), true
	}
	return "", false
}

// groupRun is the RunE of a command that only groups subcommands, as
// kubectl runs them: extra words are an unknown command; alone, it prints
// its help to stderr and exits 1.
func groupRun(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return UsageErrorf(cmd, "unknown command %q", strings.Join(args, " "))
	}
	cmd.SetOut(cmd.ErrOrStderr())
	if err := cmd.Help(); err != nil {
		return err
	}
	return ErrExit
}
