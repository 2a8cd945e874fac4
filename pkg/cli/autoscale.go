package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/scale"
)

const (
	fieldManagerAutoscale = "kubectl-autoscale"
	cpuPercentDeprecation = "Use --cpu with percentage or resource quantity format (e.g., '70%' for utilization or '500m' for milliCPU)."
)

// autoscaleSpec is what autoscale's flags ask for.
type autoscaleSpec struct {
	name       string
	min, max   int32
	cpuPercent int32
	cpu        string
	memory     string
}

func newAutoscaleCmd(f *Factory, streams genericiooptions.IOStreams) *cobra.Command {
	var spec autoscaleSpec
	var g generatorFlags
	var ff fileFlags
	cmd := &cobra.Command{
		Use:   "autoscale (-f FILENAME | TYPE NAME | TYPE/NAME) [--min=MINPODS] --max=MAXPODS [--cpu=CPU] [--memory=MEMORY]",
		Short: "Auto-scale a deployment, replica set, stateful set, or replication controller",
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("cpu-percent") {
				fmt.Fprintf(streams.ErrOut, "Flag --cpu-percent has been deprecated, %s\n", cpuPercentDeprecation)
			}
			mode, err := g.dryRun(streams.ErrOut)
			if err != nil {
				return err
			}
			if err := spec.validate(); err != nil {
				return err
			}
			env, err := newWriteEnv(f, streams)
			if err != nil {
				return err
			}
			return env.autoscale(cmd.Context(), &spec, &g, mode, ff, args)
		},
	}
	g.addOutput(cmd)
	fl := cmd.Flags()
	fl.Int32Var(&spec.min, "min", -1, "The lower limit for the number of pods that can be set by the autoscaler. If it's not specified or negative, the server will apply a default value.")
	fl.Int32Var(&spec.max, "max", -1, "The upper limit for the number of pods that can be set by the autoscaler. Required.")
	_ = cmd.MarkFlagRequired("max")
	fl.Int32Var(&spec.cpuPercent, "cpu-percent", -1, "The target average CPU utilization (represented as a percent of requested CPU) over all the pods. If it's not specified or negative, a default autoscaling policy will be used.")
	// Deprecated: hidden, and the warning is printed on stderr by RunE, as
	// kubectl prints it (pflag's own notice would go to stdout here).
	fl.Lookup("cpu-percent").Hidden = true
	fl.StringVar(&spec.cpu, "cpu", "", `Target CPU utilization over all the pods: a percentage ("70%") of requested CPU, or an average quantity ("500m"; a bare number is milliCPU).`)
	fl.StringVar(&spec.memory, "memory", "", `Target memory utilization over all the pods: a percentage ("60%") of requested memory, or an average quantity ("200Mi"; a bare number is mebibytes).`)
	fl.StringVar(&spec.name, "name", "", "The name for the newly created object. If not specified, the name of the input resource will be used.")
	g.addDryRun(cmd)
	ff.add(cmd, "identifying the resource to autoscale.")
	g.addSaveConfig(cmd)
	g.addFieldManager(cmd, fieldManagerAutoscale)
	return cmd
}

func (s *autoscaleSpec) validate() error {
	if s.max < 1 {
		return fmt.Errorf("--max=MAXPODS is required and must be at least 1, max: %d", s.max)
	}
	if s.max < s.min {
		return fmt.Errorf("--max=MAXPODS must be larger or equal to --min=MINPODS, max: %d, min: %d", s.max, s.min)
	}
	if s.cpuPercent > 0 && s.cpu != "" {
		return fmt.Errorf("--cpu-percent and --cpu are mutually exclusive")
	}
	if s.cpu != "" {
		if _, err := parseMetricTarget(s.cpu, corev1.ResourceCPU); err != nil {
			return err
		}
	}
	if s.memory != "" {
		if _, err := parseMetricTarget(s.memory, corev1.ResourceMemory); err != nil {
			return err
		}
	}
	return nil
}

// autoscale makes an HPA for each selected object that has a scale
// subresource; a failure on one does not stop the others.
func (e *writeEnv) autoscale(ctx context.Context, spec *autoscaleSpec, g *generatorFlags, mode dryRunMode, ff fileFlags, args []string) error {
	infos, err := e.autoscaleTargets(ctx, ff, args)
	if err != nil && len(infos) == 0 {
		return err
	}
	var errs []error
	if err != nil {
		errs = append(errs, err)
	}
	dc, err := e.f.Discovery()
	if err != nil {
		return err
	}
	resolver := scale.NewDiscoveryScaleKindResolver(dc)
	for _, info := range infos {
		gvk := info.Mapping.GroupVersionKind
		if _, err := resolver.ScaleForResource(gvk.GroupVersion().WithResource(info.Mapping.Resource.Resource)); err != nil {
			errs = append(errs, fmt.Errorf("cannot autoscale a %s: %w", gvk.Kind, err))
			continue
		}
		if err := e.autoscaleOne(ctx, spec, g, mode, info); err != nil {
			errs = append(errs, err)
		}
	}
	if len(infos) == 0 && len(errs) == 0 {
		return fmt.Errorf("no objects passed to autoscale")
	}
	return utilerrors.NewAggregate(errs)
}

// autoscaleTargets are the objects of -f (as the files give them) or of
// the arguments (fetched from the server).
func (e *writeEnv) autoscaleTargets(ctx context.Context, ff fileFlags, args []string) ([]*objectInfo, error) {
	if len(ff.Filenames) > 0 {
		infos, errs, err := e.readInfos(ff)
		if err != nil {
			return nil, err
		}
		return infos, utilerrors.NewAggregate(errs)
	}
	if len(args) == 0 {
		return nil, errNoResources
	}
	return e.liveTargets(ctx, targetFlags{}, args)
}

// autoscaleOne sends an autoscaling/v2 HPA. As kubectl does, when that
// fails for any reason it tries autoscaling/v1, if the flags can be said
// in v1 (kubectl's test for that needs --cpu as a percentage).
func (e *writeEnv) autoscaleOne(ctx context.Context, spec *autoscaleSpec, g *generatorFlags, mode dryRunMode, info *objectInfo) error {
	ref := info.Mapping.GroupVersionKind
	v2, err := spec.hpaV2(info.Name, ref.GroupVersion().String(), ref.Kind, e.target)
	if err != nil {
		return fmt.Errorf("failed to create HorizontalPodAutoscaler using autoscaling/v2 API: %w", err)
	}
	if err := e.sendHPA(ctx, g, mode, v2); err == nil {
		return nil
	}
	if ok, err := spec.v1Compatible(); !ok {
		return fmt.Errorf("failed to create autoscaling/v2 HPA and the configuration is incompatible with autoscaling/v1: %w", err)
	}
	return e.sendHPA(ctx, g, mode, spec.hpaV1(info.Name, ref.GroupVersion().String(), ref.Kind, e.target))
}

// v1Compatible is kubectl's canCreateHPAV1, quirks included: without
// --cpu it fails with "empty input".
func (s *autoscaleSpec) v1Compatible() (bool, error) {
	t, err := parseMetricTarget(s.cpu, corev1.ResourceCPU)
	if err != nil {
		return false, err
	}
	return (s.cpuPercent >= 0 && s.memory == "") || (s.memory == "" && t.typ == autoscalingv2.UtilizationMetricType), nil
}

// sendHPA creates one HPA (of either version) and prints it; with
// --dry-run=client it only prints it.
func (e *writeEnv) sendHPA(ctx context.Context, g *generatorFlags, mode dryRunMode, hpa metav1.Object) error {
	gvk := autoscalingv2.SchemeGroupVersion.WithKind("HorizontalPodAutoscaler")
	if _, ok := hpa.(*autoscalingv1.HorizontalPodAutoscaler); ok {
		gvk = autoscalingv1.SchemeGroupVersion.WithKind("HorizontalPodAutoscaler")
	}
	if mode == dryRunClient {
		if err := g.checkOutput(); err != nil {
			return err
		}
		return g.printDone(e.streams.Out, "created", mode, gvk, hpa)
	}
	if err := saveConfig(g.SaveConfig, hpa); err != nil {
		return err
	}
	cs, err := e.f.Clientset()
	if err != nil {
		return err
	}
	opts := metav1.CreateOptions{FieldManager: g.FieldManager}
	if mode == dryRunServer {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	var created metav1.Object
	switch h := hpa.(type) {
	case *autoscalingv2.HorizontalPodAutoscaler:
		created, err = cs.AutoscalingV2().HorizontalPodAutoscalers(e.target.Namespace).Create(ctx, h, opts)
	case *autoscalingv1.HorizontalPodAutoscaler:
		created, err = cs.AutoscalingV1().HorizontalPodAutoscalers(e.target.Namespace).Create(ctx, h, opts)
	}
	if err != nil {
		return err
	}
	// kubectl builds its printer only now, after the create.
	if err := g.checkOutput(); err != nil {
		return err
	}
	return g.printDone(e.streams.Out, "autoscaled", mode, gvk, created)
}

// hpaV2 is the autoscaling/v2 HPA kubectl builds: metrics only for the
// targets given, minReplicas only when positive, the namespace only with
// an explicit -n.
func (s *autoscaleSpec) hpaV2(refName, refAPIVersion, refKind string, target manifestTarget) (*autoscalingv2.HorizontalPodAutoscaler, error) {
	hpa := &autoscalingv2.HorizontalPodAutoscaler{
		TypeMeta:   metav1.TypeMeta{APIVersion: "autoscaling/v2", Kind: "HorizontalPodAutoscaler"},
		ObjectMeta: metav1.ObjectMeta{Name: s.hpaName(refName)},
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: refAPIVersion, Kind: refKind, Name: refName},
			MaxReplicas:    s.max,
		},
	}
	if s.min > 0 {
		hpa.Spec.MinReplicas = &s.min
	}
	if target.Enforce {
		hpa.Namespace = target.Namespace
	}
	if s.cpuPercent > 0 {
		t := metricTarget{typ: autoscalingv2.UtilizationMetricType, utilization: s.cpuPercent}
		hpa.Spec.Metrics = append(hpa.Spec.Metrics, t.metric(corev1.ResourceCPU))
	}
	for _, m := range []struct {
		input string
		res   corev1.ResourceName
	}{{s.cpu, corev1.ResourceCPU}, {s.memory, corev1.ResourceMemory}} {
		if m.input == "" {
			continue
		}
		t, err := parseMetricTarget(m.input, m.res)
		if err != nil {
			return nil, err
		}
		hpa.Spec.Metrics = append(hpa.Spec.Metrics, t.metric(m.res))
	}
	return hpa, nil
}

// hpaV1 is the autoscaling/v1 fallback: a CPU percentage target at most.
func (s *autoscaleSpec) hpaV1(refName, refAPIVersion, refKind string, target manifestTarget) *autoscalingv1.HorizontalPodAutoscaler {
	hpa := &autoscalingv1.HorizontalPodAutoscaler{
		TypeMeta:   metav1.TypeMeta{APIVersion: "autoscaling/v1", Kind: "HorizontalPodAutoscaler"},
		ObjectMeta: metav1.ObjectMeta{Name: s.hpaName(refName)},
		Spec: autoscalingv1.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv1.CrossVersionObjectReference{APIVersion: refAPIVersion, Kind: refKind, Name: refName},
			MaxReplicas:    s.max,
		},
	}
	if s.min > 0 {
		hpa.Spec.MinReplicas = &s.min
	}
	if s.cpuPercent >= 0 {
		c := s.cpuPercent
		hpa.Spec.TargetCPUUtilizationPercentage = &c
	}
	if target.Enforce {
		hpa.Namespace = target.Namespace
	}
	return hpa
}

func (s *autoscaleSpec) hpaName(refName string) string {
	if s.name != "" {
		return s.name
	}
	return refName
}
