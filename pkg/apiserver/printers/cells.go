package printers

import (
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/duration"
)

// age renders how long ago t was, as kubectl's AGE column shows it.
func age(t metav1.Time, now time.Time) string {
	if t.IsZero() {
		return "<unknown>"
	}
	return duration.HumanDuration(now.Sub(t.Time))
}

// microAge is age for the MicroTime fields of events.
func microAge(t metav1.MicroTime, now time.Time) string {
	if t.IsZero() {
		return "<unknown>"
	}
	return duration.HumanDuration(now.Sub(t.Time))
}

// containerCells joins the names and the images of containers with commas.
func containerCells(containers []corev1.Container) (names, images string) {
	n := make([]string, 0, len(containers))
	im := make([]string, 0, len(containers))
	for _, c := range containers {
		n = append(n, c.Name)
		im = append(im, c.Image)
	}
	return strings.Join(n, ","), strings.Join(im, ",")
}

// orNone is "<none>" for an empty string, kubectl's placeholder.
func orNone(s string) string {
	if s == "" {
		return "<none>"
	}
	return s
}
