package ctrlruntime

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/recorder"

	"github.com/miniapi/miniapi/test/e2e/harness"
)

// TestReconcilerOwnsConfigMaps runs a leader-elected manager whose
// reconciler is For Deployments and Owns ConfigMaps, against a Deployment
// created before it starts and one created while it runs. The owned
// ConfigMaps appear with a controller owner reference, come back when
// deleted (the Owns watch maps them to their owner), follow the
// Deployment's image, and are garbage-collected with it; the reconciler's
// events v1 recorder stores events readable through both events APIs.
func TestReconcilerOwnsConfigMaps(t *testing.T) {
	s := harness.Start(t, "--pod-ready-delay=0")
	c := s.Client()
	ctx := ctxFor(t)
	web := createDeployment(ctx, t, c, "web", "nginx:1.27")

	mgr := newManager(t, s.Config(), managerOptions("configmap-per-deployment"))
	if err := (&configMapPerDeployment{}).setup(mgr); err != nil {
		t.Fatalf("setting up the reconciler: %v", err)
	}
	m := run(t, mgr)
	t.Logf("manager elected %s after Start", m.waitElected(t, 30*time.Second).Round(time.Millisecond))
	if !mgr.GetCache().WaitForCacheSync(ctx) {
		t.Fatalf("the manager's cache did not sync")
	}
	t.Logf("manager's cache synced %s after Start", time.Since(m.started).Round(time.Millisecond))
	cm := waitConfigMap(t, c, "web", func(cm *corev1.ConfigMap) bool { return true })
	t.Logf("first owned ConfigMap %s after Start", time.Since(m.started).Round(time.Millisecond))
	checkOwned(t, cm, web)

	deleted := time.Now()
	if err := c.CoreV1().ConfigMaps(ns).Delete(ctx, cm.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	again := waitConfigMap(t, c, "web", func(n *corev1.ConfigMap) bool { return n.UID != cm.UID })
	t.Logf("deleted ConfigMap recreated after %s", time.Since(deleted).Round(time.Millisecond))
	checkOwned(t, again, web)

	image := []byte(`{"spec":{"template":{"spec":{"containers":[{"name":"app","image":"nginx:1.28"}]}}}}`)
	if _, err := c.AppsV1().Deployments(ns).Patch(ctx, "web", types.StrategicMergePatchType, image, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	waitConfigMap(t, c, "web", func(n *corev1.ConfigMap) bool { return n.Data["image"] == "nginx:1.28" })

	api := createDeployment(ctx, t, c, "api", "busybox")
	checkOwned(t, waitConfigMap(t, c, "api", func(*corev1.ConfigMap) bool { return true }), api)

	eventsFrom := time.Now()
	checkEvents(ctx, t, c, web)
	t.Logf("recorder's events readable %s after the check began", time.Since(eventsFrom).Round(time.Millisecond))
	seriesFrom := time.Now()
	checkSeries(ctx, t, c, mgr.GetEventRecorder("series-check"), again)
	t.Logf("a repeated event stored as a series of 2 %s after the first Eventf", time.Since(seriesFrom).Round(time.Millisecond))

	deleted = time.Now()
	if err := c.AppsV1().Deployments(ns).Delete(ctx, "web", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, 60*time.Second, "the garbage collector to delete web-config", func(ctx context.Context) (bool, error) {
		_, err := c.CoreV1().ConfigMaps(ns).Get(ctx, configMapName("web"), metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
	t.Logf("owned ConfigMap garbage-collected %s after its Deployment's deletion", time.Since(deleted).Round(time.Millisecond))
}

func createDeployment(ctx context.Context, t *testing.T, c kubernetes.Interface, name, image string) *appsv1.Deployment {
	t.Helper()
	labels := map[string]string{"app": name}
	d, err := c.AppsV1().Deployments(ns).Create(ctx, &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr(int32(1)),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: image}}},
			},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating deployment %s: %v", name, err)
	}
	return d
}

// waitConfigMap waits for the ConfigMap the reconciler keeps for
// deployment to exist and satisfy ok.
func waitConfigMap(t *testing.T, c kubernetes.Interface, deployment string, ok func(*corev1.ConfigMap) bool) *corev1.ConfigMap {
	t.Helper()
	var got *corev1.ConfigMap
	eventually(t, 60*time.Second, "ConfigMap "+configMapName(deployment), func(ctx context.Context) (bool, error) {
		cm, err := c.CoreV1().ConfigMaps(ns).Get(ctx, configMapName(deployment), metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		got = cm
		return ok(cm), nil
	})
	return got
}

func checkOwned(t *testing.T, cm *corev1.ConfigMap, owner *appsv1.Deployment) {
	t.Helper()
	want := metav1.OwnerReference{APIVersion: "apps/v1", Kind: "Deployment", Name: owner.Name, UID: owner.UID,
		Controller: ptr(true), BlockOwnerDeletion: ptr(true)}
	if len(cm.OwnerReferences) != 1 || !equalOwnerRef(cm.OwnerReferences[0], want) {
		t.Errorf("%s ownerReferences = %+v; want [%+v]", cm.Name, cm.OwnerReferences, want)
	}
	if got := cm.Data["image"]; got != firstImage(owner) {
		t.Errorf("%s data.image = %q; want %q", cm.Name, got, firstImage(owner))
	}
}

func equalOwnerRef(a, b metav1.OwnerReference) bool {
	return a.APIVersion == b.APIVersion && a.Kind == b.Kind && a.Name == b.Name && a.UID == b.UID &&
		ptrValue(a.Controller) == ptrValue(b.Controller) && ptrValue(a.BlockOwnerDeletion) == ptrValue(b.BlockOwnerDeletion)
}

// checkEvents finds the reconciler's ConfigMapCreated events about d
// through events.k8s.io/v1 and through core/v1. web-config was created
// twice (first, and after its deletion). Each event names d at its
// resourceVersion then, so the recorder sends two events unless d did not
// change in between, when the second becomes a series of the first.
func checkEvents(ctx context.Context, t *testing.T, c kubernetes.Interface, d *appsv1.Deployment) {
	t.Helper()
	var evs []eventsv1.Event
	eventually(t, 60*time.Second, "the events v1 recorder's two ConfigMapCreated events", func(ctx context.Context) (bool, error) {
		list, err := c.EventsV1().Events(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		evs = eventsRegarding(list.Items, "ConfigMapCreated", d.UID)
		return occurrences(evs) == 2, nil
	})
	note := "created ConfigMap " + configMapName(d.Name)
	for _, ev := range evs {
		if ev.Regarding.Kind != "Deployment" || ev.Regarding.APIVersion != "apps/v1" || ev.Regarding.Name != d.Name ||
			ev.Related == nil || ev.Related.Kind != "ConfigMap" || ev.Related.Name != configMapName(d.Name) ||
			ev.Note != note || ev.Action != "Create" || ev.Type != corev1.EventTypeNormal ||
			ev.ReportingController != recorderName || !strings.HasPrefix(ev.ReportingInstance, recorderName+"-") ||
			ev.EventTime.IsZero() {
			t.Errorf("events.k8s.io/v1 event: %+v", ev)
		}
		core, err := c.CoreV1().Events(ns).Get(ctx, ev.Name, metav1.GetOptions{})
		if err != nil {
			t.Fatalf("the same event through core/v1: %v", err)
		}
		checkCoreMatches(t, core, &ev)
	}
	list, err := c.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: "reason=ConfigMapCreated,involvedObject.uid=" + string(d.UID)})
	if err != nil {
		t.Fatal(err)
	}
	if got := eventNames(list.Items); got != eventNamesV1(evs) {
		t.Errorf("core/v1 ConfigMapCreated events with involvedObject.uid=%s: %s; want %s", d.UID, got, eventNamesV1(evs))
	}
}

// checkSeries records one event twice about an object that does not
// change: the recorder creates the event, then patches it into a series
// of 2, which both APIs show. The second Eventf waits for the first to be
// stored: had the series patch overtaken the create, client-go would
// retry it only after 10 seconds, as against any server.
func checkSeries(ctx context.Context, t *testing.T, c kubernetes.Interface, rec recorder.EventRecorder, about *corev1.ConfigMap) {
	t.Helper()
	var ev *eventsv1.Event
	stored := func(count int32) func(ctx context.Context) (bool, error) {
		return func(ctx context.Context) (bool, error) {
			list, err := c.EventsV1().Events(ns).List(ctx, metav1.ListOptions{})
			if err != nil {
				return false, err
			}
			evs := eventsRegarding(list.Items, "Repeated", about.UID)
			if len(evs) > 1 {
				t.Fatalf("a repeated event was stored as %d events; want one series", len(evs))
			}
			if len(evs) == 0 {
				return false, nil
			}
			ev = &evs[0]
			if count == 1 {
				return ev.Series == nil, nil
			}
			return ev.Series != nil && ev.Series.Count == count, nil
		}
	}
	rec.Eventf(about, nil, corev1.EventTypeWarning, "Repeated", "Check", "seen %s", about.Name)
	eventually(t, 30*time.Second, "the event", stored(1))
	rec.Eventf(about, nil, corev1.EventTypeWarning, "Repeated", "Check", "seen %s", about.Name)
	eventually(t, 30*time.Second, "the repeated event as a series of 2", stored(2))
	core, err := c.CoreV1().Events(ns).Get(ctx, ev.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("the series through core/v1: %v", err)
	}
	checkCoreMatches(t, core, ev)
}

// checkCoreMatches compares an event read through core/v1 with the same
// event read through events.k8s.io/v1.
func checkCoreMatches(t *testing.T, core *corev1.Event, ev *eventsv1.Event) {
	t.Helper()
	if core.InvolvedObject.UID != ev.Regarding.UID || core.InvolvedObject.Kind != ev.Regarding.Kind ||
		core.InvolvedObject.ResourceVersion != ev.Regarding.ResourceVersion ||
		core.Message != ev.Note || core.Reason != ev.Reason || core.Action != ev.Action || core.Type != ev.Type ||
		core.ReportingController != ev.ReportingController || core.ReportingInstance != ev.ReportingInstance ||
		!core.EventTime.Equal(&ev.EventTime) ||
		(core.Related == nil) != (ev.Related == nil) || (core.Related != nil && core.Related.UID != ev.Related.UID) ||
		(core.Series == nil) != (ev.Series == nil) || (core.Series != nil && core.Series.Count != ev.Series.Count) {
		t.Errorf("core/v1 view of event %s differs:\ncore/v1:           %+v\nevents.k8s.io/v1: %+v", ev.Name, core, ev)
	}
}

func eventsRegarding(items []eventsv1.Event, reason string, regarding types.UID) []eventsv1.Event {
	var out []eventsv1.Event
	for _, ev := range items {
		if ev.Reason == reason && ev.Regarding.UID == regarding {
			out = append(out, ev)
		}
	}
	return out
}

// occurrences counts what events stand for: a series counts its count.
func occurrences(evs []eventsv1.Event) int32 {
	var n int32
	for _, ev := range evs {
		if ev.Series != nil {
			n += ev.Series.Count
		} else {
			n++
		}
	}
	return n
}

func eventNames(items []corev1.Event) string {
	var names []string
	for _, ev := range items {
		names = append(names, ev.Name)
	}
	slices.Sort(names)
	return strings.Join(names, ",")
}

func eventNamesV1(items []eventsv1.Event) string {
	var names []string
	for _, ev := range items {
		names = append(names, ev.Name)
	}
	slices.Sort(names)
	return strings.Join(names, ",")
}
