package cli

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/duration"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/kubernetes"
)

// describeWriter writes kubectl describe's indented, tab-aligned text:
// each level indents two spaces, and cells separated by tabs line up per
// section (flush ends a section, as the Events table does).
type describeWriter struct {
	out io.Writer
	tw  *tabwriter.Writer
}

func newDescribeWriter(out io.Writer) *describeWriter {
	tw := tabwriter.NewWriter(out, 0, 8, 2, ' ', 0)
	return &describeWriter{out: tw, tw: tw}
}

// newRawDescribeWriter keeps tabs as they are; `rollout history
// --revision` prints the pod template that way.
func newRawDescribeWriter(out io.Writer) *describeWriter {
	return &describeWriter{out: out}
}

func (w *describeWriter) write(level int, format string, a ...interface{}) {
	fmt.Fprintf(w.out, strings.Repeat("  ", level)+format, a...)
}

func (w *describeWriter) line(s string) { fmt.Fprintln(w.out, s) }

func (w *describeWriter) flush() {
	if w.tw != nil {
		w.tw.Flush()
	}
}

// maxAnnotationLen is where describe wraps a long annotation value.
const maxAnnotationLen = 140

// printLabels writes "Title:\tk=v" lines, sorted, "<none>" when empty.
func printLabels(w *describeWriter, title string, labels map[string]string) {
	w.write(0, "%s:\t", title)
	if len(labels) == 0 {
		w.line("<none>")
		return
	}
	for i, k := range sortedKeys(labels) {
		if i != 0 {
			w.write(0, "\t")
		}
		w.write(0, "%s=%s\n", k, labels[k])
	}
}

// printAnnotations writes annotations like kubectl: the last-applied
// configuration is hidden, long or multi-line values go on their own lines.
func printAnnotations(w *describeWriter, title string, annotations map[string]string) {
	w.write(0, "%s:\t", title)
	var keys []string
	for _, k := range sortedKeys(annotations) {
		if k != lastAppliedAnnotation {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		w.line("<none>")
		return
	}
	for i, k := range keys {
		if i != 0 {
			w.write(0, "\t")
		}
		v := strings.TrimSuffix(annotations[k], "\n")
		if len(v)+len(k)+2 > maxAnnotationLen || strings.Contains(v, "\n") {
			w.write(0, "%s:\n", k)
			for _, s := range strings.Split(v, "\n") {
				if len(s) > maxAnnotationLen-2 {
					s = s[:maxAnnotationLen-2] + "..."
				}
				w.write(0, "\t  %s\n", s)
			}
			continue
		}
		w.write(0, "%s: %s\n", k, v)
	}
}

// printTolerations writes "key=value:Effect op=Exists for Ns" lines.
func printTolerations(w *describeWriter, title string, tolerations []corev1.Toleration) {
	w.write(0, "%s:\t", title)
	if len(tolerations) == 0 {
		w.line("<none>")
		return
	}
	ts := append([]corev1.Toleration(nil), tolerations...)
	sort.Slice(ts, func(i, j int) bool { return ts[i].Key < ts[j].Key })
	for i, t := range ts {
		if i != 0 {
			w.write(0, "\t")
		}
		s := t.Key
		if t.Value != "" {
			s += "=" + t.Value
		}
		if t.Effect != "" {
			s += ":" + string(t.Effect)
		}
		if t.Operator == corev1.TolerationOpExists && t.Value == "" {
			if t.Key != "" || t.Effect != "" {
				s += " op=Exists"
			} else {
				s += "op=Exists"
			}
		}
		if t.TolerationSeconds != nil {
			s += fmt.Sprintf(" for %ds", *t.TolerationSeconds)
		}
		w.write(0, "%s\n", s)
	}
}

// since is describe's age: "<unknown>" for a zero time.
func since(t time.Time) string {
	if t.IsZero() {
		return "<unknown>"
	}
	return duration.HumanDuration(time.Since(t))
}

// sortableEvents orders events by last timestamp, as kubectl does (with the
// same unstable sort, so ties come out in the same order).
type sortableEvents []corev1.Event

func (s sortableEvents) Len() int      { return len(s) }
func (s sortableEvents) Swap(i, j int) { s[i], s[j] = s[j], s[i] }
func (s sortableEvents) Less(i, j int) bool {
	return s[i].LastTimestamp.Time.Before(s[j].LastTimestamp.Time)
}

// describeEvents writes the Events table (its own alignment section).
func describeEvents(w *describeWriter, events *corev1.EventList) {
	if events == nil {
		return
	}
	if len(events.Items) == 0 {
		w.write(0, "Events:\t<none>\n")
		return
	}
	w.flush()
	sort.Sort(sortableEvents(events.Items))
	w.write(0, "Events:\n  Type\tReason\tAge\tFrom\tMessage\n")
	w.write(1, "----\t------\t----\t----\t-------\n")
	for _, e := range events.Items {
		first := since(e.EventTime.Time)
		if e.EventTime.IsZero() {
			first = since(e.FirstTimestamp.Time)
		}
		interval := first
		switch {
		case e.Series != nil:
			interval = fmt.Sprintf("%s (x%d over %s)", since(e.Series.LastObservedTime.Time), e.Series.Count, first)
		case e.Count > 1:
			interval = fmt.Sprintf("%s (x%d over %s)", since(e.LastTimestamp.Time), e.Count, first)
		}
		source := e.Source.Component
		if source == "" {
			source = e.ReportingController
		}
		msg := strings.TrimSpace(e.Message)
		if e.InvolvedObject.FieldPath != "" {
			msg = e.InvolvedObject.FieldPath + ": " + msg
		}
		w.write(1, "%v\t%v\t%s\t%v\t%v\n", e.Type, e.Reason, interval, source, msg)
	}
}

// searchEvents lists the events about one object, selected as kubectl does
// by involvedObject name, namespace, kind and uid.
func searchEvents(ctx context.Context, cs kubernetes.Interface, kind string, obj metav1.Object) (*corev1.EventList, error) {
	sel := fmt.Sprintf("involvedObject.name=%s,involvedObject.namespace=%s,involvedObject.kind=%s,involvedObject.uid=%s",
		obj.GetName(), obj.GetNamespace(), kind, obj.GetUID())
	return cs.CoreV1().Events(obj.GetNamespace()).List(ctx, metav1.ListOptions{FieldSelector: sel, Limit: 500})
}

// describer renders one object; showEvents is false when several objects
// are described at once.
type describer func(ctx context.Context, cs kubernetes.Interface, namespace, name string, showEvents bool) (string, error)

var describers = map[string]describer{
	"apps/Deployment": describeDeploymentByName,
	"apps/ReplicaSet": describeReplicaSetByName,
	"/Pod":            describePodByName,
	"/Namespace":      describeNamespaceByName,
	"/Node":           describeNodeByName,
	"/ConfigMap":      describeConfigMapByName,
	"/Secret":         describeSecretByName,
	"/ServiceAccount": describeServiceAccountByName,
	"/Service":        describeServiceByName,
}

func newDescribeCmd(f *Factory, streams genericiooptions.IOStreams) *cobra.Command {
	var t targetFlags
	var showEvents bool
	cmd := &cobra.Command{
		Use:   "describe (-f FILENAME | TYPE [NAME_PREFIX | -l label] | TYPE/NAME)",
		Short: "Show details of a specific resource or group of resources",
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 && len(t.files.Filenames) == 0 {
				return UsageErrorf(cmd, "You must specify the type of resource to describe. Use \"minictl api-resources\" for a complete list of supported resources.")
			}
			if len(args) == 1 && !strings.Contains(args[0], "/") {
				t.all = true
			}
			env, err := newWriteEnv(f, streams)
			if err != nil {
				return err
			}
			return env.describe(cmd.Context(), t, args, showEvents, cmd.Flags().Changed("show-events"))
		},
	}
	t.add(cmd, "containing the resource to describe")
	cmd.Flags().BoolVar(&showEvents, "show-events", true, "If true, display events related to the described object.")
	return cmd
}

func (e *writeEnv) describe(ctx context.Context, t targetFlags, args []string, showEvents, explicit bool) error {
	infos, err := e.liveTargets(ctx, t, args)
	var errs []error
	prefixMode := false
	if err != nil {
		if !explicit {
			showEvents = false
		}
		if apierrors.IsNotFound(err) && len(args) == 2 && len(infos) == 0 {
			infos, err = e.describePrefix(ctx, args[0], args[1], err)
			if err != nil {
				return err
			}
			prefixMode = true
		} else {
			errs = append(errs, err)
		}
	}
	if len(infos) > 1 && !explicit {
		showEvents = false
	}
	cs, cerr := e.f.Clientset()
	if cerr != nil {
		return cerr
	}
	dyn, derr := e.f.Dynamic()
	if derr != nil {
		return derr
	}
	first := true
	for _, info := range infos {
		gk := info.Mapping.GroupVersionKind.GroupKind()
		d, ok := describers[gk.Group+"/"+gk.Kind]
		if !ok {
			d = genericDescriber(dyn, info.Mapping)
		}
		s, err := d(ctx, cs, info.Namespace, info.Name, showEvents)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		switch {
		case prefixMode:
			// kubectl's prefix fallback ends each description with a newline.
			fmt.Fprintf(e.streams.Out, "%s\n", s)
		case first:
			fmt.Fprint(e.streams.Out, s)
		default:
			fmt.Fprintf(e.streams.Out, "\n\n%s", s)
		}
		first = false
	}
	if len(infos) == 0 && len(errs) == 0 {
		if t.allNamespaces {
			fmt.Fprintln(e.streams.ErrOut, "No resources found")
		} else {
			fmt.Fprintf(e.streams.ErrOut, "No resources found in %s namespace.\n", e.target.Namespace)
		}
	}
	return utilerrors.NewAggregate(errs)
}

// describePrefix is kubectl's fallback for `describe TYPE NAME` when NAME
// does not exist: every object whose name starts with NAME.
func (e *writeEnv) describePrefix(ctx context.Context, typ, prefix string, notFound error) ([]*objectInfo, error) {
	all, err := e.liveTargets(ctx, targetFlags{all: true}, []string{typ})
	if err != nil {
		return nil, err
	}
	var out []*objectInfo
	for _, info := range all {
		if strings.HasPrefix(info.Name, prefix) {
			out = append(out, info)
		}
	}
	if len(out) == 0 {
		return nil, notFound
	}
	return out, nil
}

// tabbed renders with a fresh describe writer.
func tabbed(fn func(w *describeWriter)) string {
	var b strings.Builder
	w := newDescribeWriter(&b)
	fn(w)
	w.flush()
	return b.String()
}
