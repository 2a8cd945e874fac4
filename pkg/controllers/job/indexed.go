package job

// Indexed completion mode, as kube's job controller runs it: each pod
// works on one completion index in [0, completions), named in its
// annotation and label batch.kubernetes.io/job-completion-index, its
// hostname "<job>-<index>" and its env JOB_COMPLETION_INDEX. The Job is
// done when every index has a succeeded pod; status.completedIndexes lists
// them in kube's interval format and status.succeeded counts them.

import (
	"fmt"
	"sort"
	"strconv"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

// completionIndexEnv is the variable kube gives every container of an
// Indexed Job's pod.
const completionIndexEnv = "JOB_COMPLETION_INDEX"

// maxGenerateNameLength is how long a generateName may be so the server
// can still add its 5 random characters to a 63-character name.
const maxGenerateNameLength = 63 - 5

func isIndexed(job *batchv1.Job) bool {
	return job.Spec.CompletionMode != nil && *job.Spec.CompletionMode == batchv1.IndexedCompletion
}

// completions is spec.completions (an Indexed Job always has it).
func completions(job *batchv1.Job) int {
	if job.Spec.Completions == nil {
		return 0
	}
	return int(*job.Spec.Completions)
}

// completionIndex is the index a pod works on, from its annotation, or -1.
func completionIndex(p *corev1.Pod) int {
	v, ok := p.Annotations[batchv1.JobCompletionIndexAnnotation]
	if !ok {
		return -1
	}
	ix, err := strconv.Atoi(v)
	if err != nil || ix < 0 {
		return -1
	}
	return ix
}

// validIndex: the pod has an index below completions.
func validIndex(job *batchv1.Job, p *corev1.Pod) bool {
	ix := completionIndex(p)
	return ix >= 0 && ix < completions(job)
}

// withIndex makes pod the pod of index ix: annotation and label, hostname,
// a generateName "<job>-<ix>-" (shortened as kube shortens it), and the
// JOB_COMPLETION_INDEX variable read from the label.
func withIndex(pod *corev1.Pod, job *batchv1.Job, ix int) {
	v := strconv.Itoa(ix)
	if pod.Annotations == nil {
		pod.Annotations = map[string]string{}
	}
	if pod.Labels == nil {
		pod.Labels = map[string]string{}
	}
	pod.Annotations[batchv1.JobCompletionIndexAnnotation] = v
	pod.Labels[batchv1.JobCompletionIndexAnnotation] = v
	pod.Spec.Hostname = fmt.Sprintf("%s-%d", job.Name, ix)
	suffix := "-" + v + "-"
	prefix := job.Name + suffix
	if len(prefix) > maxGenerateNameLength {
		prefix = prefix[:maxGenerateNameLength-len(suffix)] + suffix
	}
	pod.GenerateName = prefix
	for i := range pod.Spec.InitContainers {
		addIndexEnv(&pod.Spec.InitContainers[i])
	}
	for i := range pod.Spec.Containers {
		addIndexEnv(&pod.Spec.Containers[i])
	}
}

func addIndexEnv(c *corev1.Container) {
	for _, e := range c.Env {
		if e.Name == completionIndexEnv {
			return
		}
	}
	c.Env = append(c.Env, corev1.EnvVar{Name: completionIndexEnv, ValueFrom: &corev1.EnvVarSource{
		FieldRef: &corev1.ObjectFieldSelector{FieldPath: fmt.Sprintf("metadata.labels['%s']", batchv1.JobCompletionIndexAnnotation)},
	}})
}

// pendingIndexes returns up to n indexes below completions that no active
// pod works on and that have neither succeeded nor failed for good,
// lowest first.
func pendingIndexes(job *batchv1.Job, active []*corev1.Pod, done intervals, n int) []int {
	busy := done
	for _, p := range active {
		if ix := completionIndex(p); ix >= 0 {
			busy = busy.with(ix)
		}
	}
	var out []int
	for ix := 0; ix < completions(job) && len(out) < n; ix++ {
		if !busy.has(ix) {
			out = append(out, ix)
		}
	}
	return out
}

// surplusIndexed splits an Indexed Job's active pods into those to delete
// (no valid index, or a second pod for an index; the newest of a pair
// goes) and those to keep.
func surplusIndexed(job *batchv1.Job, active []*corev1.Pod) (del, keep []*corev1.Pod) {
	byIndex := map[int][]*corev1.Pod{}
	for _, p := range active {
		if !validIndex(job, p) {
			del = append(del, p)
			continue
		}
		byIndex[completionIndex(p)] = append(byIndex[completionIndex(p)], p)
	}
	ixs := make([]int, 0, len(byIndex))
	for ix := range byIndex {
		ixs = append(ixs, ix)
	}
	sort.Ints(ixs)
	for _, ix := range ixs {
		pods := newestFirst(byIndex[ix])
		del = append(del, pods[:len(pods)-1]...)
		keep = append(keep, pods[len(pods)-1])
	}
	return del, keep
}
