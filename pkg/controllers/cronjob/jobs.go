package cronjob

import (
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/miniapi/miniapi/pkg/controllers/internal/owner"
)

// ScheduledTimestampAnnotation is the scheduled time of the run a Job is,
// in the CronJob's time zone.
const ScheduledTimestampAnnotation = batchv1.CronJobScheduledTimestampAnnotation

// jobFromTemplate is the Job of the run scheduled at scheduled: the
// jobTemplate's labels, annotations and spec, the scheduled-timestamp
// annotation, and the CronJob as its controller. The server adds the
// Job's selector and labels.
func jobFromTemplate(cj *batchv1.CronJob, scheduled time.Time, name string) (*batchv1.Job, error) {
	loc, err := time.LoadLocation(derefString(cj.Spec.TimeZone))
	if err != nil {
		return nil, err
	}
	t := cj.Spec.JobTemplate.DeepCopy()
	annotations := t.Annotations
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[ScheduledTimestampAnnotation] = scheduled.In(loc).Format(time.RFC3339)
	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{
			Name:            name,
			Namespace:       cj.Namespace,
			Labels:          t.Labels,
			Annotations:     annotations,
			OwnerReferences: []metav1.OwnerReference{owner.ControllerRef(cj, cronJobKind)},
		},
		Spec: t.Spec,
	}, nil
}

func derefString(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// finishedCondition says whether the Job finished, and how (Complete or
// Failed).
func finishedCondition(j *batchv1.Job) (bool, batchv1.JobConditionType) {
	for _, c := range j.Status.Conditions {
		if (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) && c.Status == corev1.ConditionTrue {
			return true, c.Type
		}
	}
	return false, ""
}

// jobRef is how status.active points at a Job.
func jobRef(j *batchv1.Job) corev1.ObjectReference {
	return corev1.ObjectReference{
		APIVersion: "batch/v1", Kind: "Job", Namespace: j.Namespace, Name: j.Name, UID: j.UID, ResourceVersion: j.ResourceVersion,
	}
}

func inActive(cj *batchv1.CronJob, uid types.UID) bool {
	for _, r := range cj.Status.Active {
		if r.UID == uid {
			return true
		}
	}
	return false
}

func activeByName(cj *batchv1.CronJob, name string) bool {
	for _, r := range cj.Status.Active {
		if r.Name == name {
			return true
		}
	}
	return false
}

func removeActive(cj *batchv1.CronJob, uid types.UID) {
	kept := cj.Status.Active[:0]
	for _, r := range cj.Status.Active {
		if r.UID != uid {
			kept = append(kept, r)
		}
	}
	cj.Status.Active = kept
	if len(kept) == 0 {
		cj.Status.Active = nil
	}
}
