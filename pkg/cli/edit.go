package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/jsonmergepatch"
	"k8s.io/apimachinery/pkg/util/mergepatch"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/yaml"
)

// editHeader is the comment kubectl puts above the object it opens.
const editHeader = `# Please edit the object below. Lines beginning with a '#' will be ignored,
# and an empty file will abort the edit. If an error occurs while saving this file will be
# reopened with the relevant failures.
#
`

func newEditCmd(f *Factory, streams genericiooptions.IOStreams) *cobra.Command {
	var t targetFlags
	cmd := &cobra.Command{
		Use:   "edit (RESOURCE/NAME | -f FILENAME)",
		Short: "Edit a resource on the server",
		Long: "Edit a resource on the server with the editor named by $KUBE_EDITOR or $EDITOR (default vi).\n" +
			"The changes are sent as a strategic merge patch (a JSON merge patch for kinds the client does not know).",
		RunE: func(cmd *cobra.Command, args []string) error {
			env, err := newWriteEnv(f, streams)
			if err != nil {
				return err
			}
			infos, err := env.liveTargets(cmd.Context(), t, args)
			if err != nil {
				return err
			}
			for _, info := range infos {
				if err := env.editOne(cmd.Context(), info); err != nil {
					return err
				}
			}
			return nil
		},
	}
	t.files.add(cmd, "to use to edit the resource")
	return cmd
}

// editorCommand is $KUBE_EDITOR, else $EDITOR, else vi; an editor with
// arguments runs through the shell, as kubectl does.
func editorCommand(path string) *exec.Cmd {
	editor := os.Getenv("KUBE_EDITOR")
	if editor == "" {
		editor = os.Getenv("EDITOR")
	}
	if editor == "" {
		editor = "vi"
	}
	if strings.Contains(editor, " ") {
		return exec.Command("sh", "-c", editor+" "+shellQuote(path))
	}
	return exec.Command(editor, path)
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// editOne opens the live object as YAML in the editor, and patches the
// object with what changed. No change, or an empty file, cancels. When the
// server rejects the change as invalid, the file is reopened with the causes
// in its header, as kubectl does; saving it unchanged then gives up and
// keeps the file.
func (e *writeEnv) editOne(ctx context.Context, info *objectInfo) error {
	// kubectl edits without managedFields unless --show-managed-fields.
	dropManagedFields(info.Obj.Object)
	original, err := json.Marshal(info.Obj.Object)
	if err != nil {
		return err
	}
	body, err := yaml.JSONToYAML(original)
	if err != nil {
		return err
	}
	dyn, err := e.f.Dynamic()
	if err != nil {
		return err
	}
	var reasons string
	var previous []byte
	for {
		edited, file, err := e.runEditor(editHeader + reasons + string(body))
		if err != nil {
			return err
		}
		stripped := stripComments(edited)
		if previous != nil && bytes.Equal(stripComments(previous), stripped) {
			fmt.Fprintf(e.streams.ErrOut, "A copy of your changes has been stored to %q\n", file)
			//lint:ignore ST1005 kubectl's exact wording
			return fmt.Errorf("Edit cancelled, no valid changes were saved.")
		}
		done, err := e.saveEdit(ctx, dyn, info, original, stripped)
		if err == nil {
			os.Remove(file)
			if done != "" {
				fmt.Fprintln(e.streams.ErrOut, done)
			}
			return nil
		}
		if !apierrors.IsInvalid(err) {
			fmt.Fprintf(e.streams.ErrOut, "A copy of your changes has been stored to %q\n", file)
			return err
		}
		os.Remove(file)
		resource := info.Mapping.Resource.GroupResource().String()
		fmt.Fprintf(e.streams.ErrOut, "error: %s %q is invalid\n", resource, info.Name)
		reasons = invalidEditReasons(resource, info.Name, err)
		previous, body = edited, stripped
	}
}

// runEditor writes content to a temporary file, lets the editor change it
// and returns what was saved and the file's path.
func (e *writeEnv) runEditor(content string) ([]byte, string, error) {
	tmp, err := os.CreateTemp("", "minictl-edit-*.yaml")
	if err != nil {
		return nil, "", err
	}
	if _, err := tmp.WriteString(content); err != nil {
		tmp.Close()
		return nil, "", err
	}
	tmp.Close()
	cmd := editorCommand(tmp.Name())
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, e.streams.Out, e.streams.ErrOut
	if err := cmd.Run(); err != nil {
		return nil, tmp.Name(), fmt.Errorf("there was a problem with the editor %q", strings.Join(cmd.Args, " "))
	}
	edited, err := os.ReadFile(tmp.Name())
	return edited, tmp.Name(), err
}

// saveEdit sends the change; it returns kubectl's cancel message when there
// is nothing to send, or "" after printing "edited".
func (e *writeEnv) saveEdit(ctx context.Context, dyn dynamic.Interface, info *objectInfo, original, stripped []byte) (string, error) {
	if len(bytes.TrimSpace(stripped)) == 0 {
		return "Edit cancelled, saved file was empty.", nil
	}
	editedJSON, err := yaml.YAMLToJSON(stripped)
	if err != nil {
		return "", fmt.Errorf("error parsing edited object: %v", err)
	}
	if equalJSON(original, editedJSON) {
		return "Edit cancelled, no changes made.", nil
	}
	patch, pt, err := editPatch(info, original, editedJSON)
	if err != nil {
		return "", err
	}
	if _, err := info.client(dyn).Patch(ctx, info.Name, pt, patch, metav1.PatchOptions{FieldManager: "kubectl-edit"}); err != nil {
		return "", err
	}
	fmt.Fprintf(e.streams.Out, "%s edited\n", info.kindName())
	return "", nil
}

// invalidEditReasons is the comment block kubectl adds to the reopened file.
func invalidEditReasons(resource, name string, err error) string {
	var b strings.Builder
	var status apierrors.APIStatus
	var causes []metav1.StatusCause
	if errors.As(err, &status) && status.Status().Details != nil {
		causes = status.Status().Details.Causes
	}
	head := fmt.Sprintf("%s %q was not valid", resource, name)
	if len(causes) == 0 {
		fmt.Fprintf(&b, "# %s\n", head)
	} else {
		fmt.Fprintf(&b, "# %s:\n", head)
	}
	for _, c := range causes {
		fmt.Fprintf(&b, "# * %s: %s\n", strings.ReplaceAll(c.Field, "\n", "\n# "), strings.ReplaceAll(c.Message, "\n", "\n# "))
	}
	b.WriteString("#\n")
	return b.String()
}

// editPatch is the two-way patch from the object as opened to the object as
// saved; apiVersion, kind and name must not change.
func editPatch(info *objectInfo, original, edited []byte) ([]byte, types.PatchType, error) {
	preconditions := []mergepatch.PreconditionFunc{mergepatch.RequireKeyUnchanged("apiVersion"),
		mergepatch.RequireKeyUnchanged("kind"), mergepatch.RequireMetadataKeyUnchanged("name")}
	versioned, err := scheme.Scheme.New(info.Mapping.GroupVersionKind)
	var patch []byte
	pt := types.StrategicMergePatchType
	if err == nil {
		patch, err = strategicpatch.CreateTwoWayMergePatch(original, edited, versioned, preconditions...)
	} else {
		pt = types.MergePatchType
		patch, err = jsonmergepatch.CreateThreeWayJSONMergePatch(original, edited, original, preconditions...)
	}
	if err != nil {
		if mergepatch.IsPreconditionFailed(err) {
			return nil, "", fmt.Errorf("at least one of apiVersion, kind and name was changed")
		}
		return nil, "", err
	}
	return patch, pt, nil
}

func stripComments(b []byte) []byte {
	var out bytes.Buffer
	for _, line := range bytes.SplitAfter(b, []byte("\n")) {
		if bytes.HasPrefix(bytes.TrimSpace(line), []byte("#")) {
			continue
		}
		out.Write(line)
	}
	return out.Bytes()
}

func equalJSON(a, b []byte) bool {
	var x, y interface{}
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}
