package cli

import (
	"bytes"
	"fmt"
	"sort"
	"text/tabwriter"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

func newRolloutHistoryCmd(f *Factory, streams genericiooptions.IOStreams) *cobra.Command {
	var t targetFlags
	var revision int64
	cmd := &cobra.Command{
		Use:   "history (TYPE NAME | TYPE/NAME) [flags]",
		Short: "View rollout history",
		RunE: func(cmd *cobra.Command, args []string) error {
			if revision < 0 {
				return fmt.Errorf("revision must be a positive integer: %v", revision)
			}
			ctx := cmd.Context()
			_, deployments, err := rolloutDeployments(ctx, f, streams, args, t)
			if err != nil {
				return err
			}
			cs, err := f.Clientset()
			if err != nil {
				return err
			}
			for _, d := range deployments {
				newRS, old, err := deploymentReplicaSets(ctx, cs, d)
				if err != nil {
					return err
				}
				if newRS != nil {
					old = append(old, newRS)
				}
				templates := map[int64]*corev1.PodTemplateSpec{}
				for _, rs := range old {
					v, err := revisionOf(rs)
					if err != nil {
						continue
					}
					tpl := rs.Spec.Template.DeepCopy()
					if cause := rs.Annotations[changeCauseAnnotation]; cause != "" {
						if tpl.Annotations == nil {
							tpl.Annotations = map[string]string{}
						}
						tpl.Annotations[changeCauseAnnotation] = cause
					}
					templates[v] = tpl
				}
				text, err := historyText(templates, revision)
				if err != nil {
					return err
				}
				with := ""
				if revision > 0 {
					with = fmt.Sprintf("with revision #%d", revision)
				}
				fmt.Fprintf(streams.Out, "deployment.apps/%s %s\n%s\n", d.Name, with, text)
			}
			return nil
		},
	}
	t.add(cmd, "identifying the resource to get from a server")
	cmd.Flags().Int64Var(&revision, "revision", 0, "See the details, including podTemplate of the revision specified")
	return cmd
}

// historyText is the REVISION/CHANGE-CAUSE table, or one revision's pod
// template in describe's layout.
func historyText(templates map[int64]*corev1.PodTemplateSpec, revision int64) (string, error) {
	if len(templates) == 0 {
		return "No rollout history found.", nil
	}
	if revision > 0 {
		tpl, ok := templates[revision]
		if !ok {
			return "", fmt.Errorf("unable to find the specified revision")
		}
		var buf bytes.Buffer
		w := newRawDescribeWriter(&buf)
		describePodTemplate(w, tpl)
		w.flush()
		return buf.String(), nil
	}
	revs := make([]int64, 0, len(templates))
	for r := range templates {
		revs = append(revs, r)
	}
	sort.Slice(revs, func(i, j int) bool { return revs[i] < revs[j] })
	var buf bytes.Buffer
	tw := tabwriter.NewWriter(&buf, 0, 8, 2, ' ', 0)
	fmt.Fprintf(tw, "REVISION\tCHANGE-CAUSE\n")
	for _, r := range revs {
		cause := templates[r].Annotations[changeCauseAnnotation]
		if cause == "" {
			cause = "<none>"
		}
		fmt.Fprintf(tw, "%d\t%s\n", r, cause)
	}
	tw.Flush()
	return buf.String(), nil
}
