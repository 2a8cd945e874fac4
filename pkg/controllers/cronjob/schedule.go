package cronjob

import (
	"fmt"
	"time"

	"github.com/robfig/cron/v3"
	batchv1 "k8s.io/api/batch/v1"
)

// nextDelta is added to the wait for the next run, so the controller wakes
// just after the scheduled time, not just before it.
const nextDelta = 100 * time.Millisecond

// tooManyMissed is where kube warns that runs were missed.
const tooManyMissed = 100

// parseSchedule parses the CronJob's schedule in its time zone, as kube
// does (robfig/cron's standard syntax, with the zone as a TZ= prefix).
func parseSchedule(cj *batchv1.CronJob) (cron.Schedule, error) {
	spec := cj.Spec.Schedule
	if cj.Spec.TimeZone != nil {
		spec = "TZ=" + *cj.Spec.TimeZone + " " + spec
	}
	return cron.ParseStandard(spec)
}

// mostRecentRun returns the latest scheduled time not after now that has
// not run yet (nil if none), counting from lastScheduleTime or, before
// the first run, the creation time; with startingDeadlineSeconds, no
// earlier than that far back. missed is how many runs are due.
func mostRecentRun(cj *batchv1.CronJob, sched cron.Schedule, now time.Time) (run *time.Time, missed int, err error) {
	earliest := cj.CreationTimestamp.Time
	if cj.Status.LastScheduleTime != nil {
		earliest = cj.Status.LastScheduleTime.Time
	}
	if d := cj.Spec.StartingDeadlineSeconds; d != nil {
		if limit := now.Add(-time.Duration(*d) * time.Second); limit.After(earliest) {
			earliest = limit
		}
	}
	t := sched.Next(earliest)
	if t.IsZero() || t.After(now) {
		return nil, 0, nil
	}
	t2 := sched.Next(t)
	if t2.Sub(t) < time.Second {
		return nil, 0, fmt.Errorf("time difference between two schedules is less than 1 second")
	}
	missed = 1
	for ; !t2.IsZero() && !t2.After(now); t2 = sched.Next(t2) {
		t = t2
		missed++
	}
	return &t, missed, nil
}

// untilNext is how long until just after the next scheduled time.
func untilNext(sched cron.Schedule, now time.Time) (time.Duration, bool) {
	next := sched.Next(now)
	if next.IsZero() {
		return 0, false
	}
	return next.Sub(now) + nextDelta, true
}

// jobName is "<cronjob>-<scheduled time in minutes since the epoch>".
func jobName(cj *batchv1.CronJob, scheduled time.Time) string {
	return fmt.Sprintf("%s-%d", cj.Name, scheduled.Unix()/60)
}
