package apiserver

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
)

// runningPod creates pod name (label app=web, unscheduled so a delete
// removes it at once) and marks it Running, and Ready when ready.
func runningPod(t *testing.T, c kubernetes.Interface, name string, ready bool) *corev1.Pod {
	t.Helper()
	ctx := context.Background()
	pod, err := c.CoreV1().Pods("default").Create(ctx, &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"app": "web"}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	status := corev1.ConditionFalse
	if ready {
		status = corev1.ConditionTrue
	}
	pod.Status.Phase = corev1.PodRunning
	pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: status}}
	if pod, err = c.CoreV1().Pods("default").UpdateStatus(ctx, pod, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	return pod
}

// budget creates a PDB selecting app=web and sets its status as the
// disruption controller would.
func budget(t *testing.T, c kubernetes.Interface, name string, status policyv1.PodDisruptionBudgetStatus) *policyv1.PodDisruptionBudget {
	t.Helper()
	ctx := context.Background()
	one := intstr.FromInt32(1)
	pdb, err := c.PolicyV1().PodDisruptionBudgets("default").Create(ctx, &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       policyv1.PodDisruptionBudgetSpec{MinAvailable: &one, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	status.ObservedGeneration = pdb.Generation
	pdb.Status = status
	if pdb, err = c.PolicyV1().PodDisruptionBudgets("default").UpdateStatus(ctx, pdb, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	return pdb
}

func evictionBody(name string) string {
	return `{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"` + name + `","namespace":"default"}}`
}

const evictionPath = "/api/v1/namespaces/default/pods/"

// TestEvictionRespectsBudget evicts through HTTP: refused with kube's 429
// and DisruptionBudget cause while the budget allows nothing, then
// allowed, which deletes the pod and spends the disruption.
func TestEvictionRespectsBudget(t *testing.T) {
	ts := startTestServer(t)
	c := ts.client(t)
	ctx := context.Background()
	runningPod(t, c, "web-1", true)
	pdb := budget(t, c, "web-pdb", policyv1.PodDisruptionBudgetStatus{CurrentHealthy: 1, DesiredHealthy: 1, ExpectedPods: 1})

	code, _, body := ts.do(t, http.MethodPost, evictionPath+"web-1/eviction", jsonBody, evictionBody("web-1"))
	wantStatus(t, "blocked eviction", code, body, http.StatusTooManyRequests, "Cannot evict pod as it would violate the pod's disruption budget.")
	var st metav1.Status
	if err := json.Unmarshal([]byte(body), &st); err != nil {
		t.Fatal(err)
	}
	if st.Reason != metav1.StatusReasonTooManyRequests || st.Details == nil || len(st.Details.Causes) != 1 ||
		st.Details.Causes[0].Type != "DisruptionBudget" ||
		st.Details.Causes[0].Message != "The disruption budget web-pdb needs 1 healthy pods and has 1 currently" {
		t.Fatalf("blocked eviction: %s", body)
	}
	if _, err := c.CoreV1().Pods("default").Get(ctx, "web-1", metav1.GetOptions{}); err != nil {
		t.Fatalf("blocked eviction removed the pod: %v", err)
	}

	pdb.Status.DisruptionsAllowed, pdb.Status.CurrentHealthy = 1, 2
	if _, err := c.PolicyV1().PodDisruptionBudgets("default").UpdateStatus(ctx, pdb, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	code, _, body = ts.do(t, http.MethodPost, evictionPath+"web-1/eviction", jsonBody, evictionBody("web-1"))
	if code != http.StatusCreated || !json.Valid([]byte(body)) {
		t.Fatalf("allowed eviction: %d %s", code, body)
	}
	if err := json.Unmarshal([]byte(body), &st); err != nil || st.Kind != "Status" || st.Status != metav1.StatusSuccess {
		t.Fatalf("allowed eviction answered %s", body)
	}
	if _, err := c.CoreV1().Pods("default").Get(ctx, "web-1", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("evicted pod still there: %v", err)
	}
	got, err := c.PolicyV1().PodDisruptionBudgets("default").Get(ctx, "web-pdb", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, noted := got.Status.DisruptedPods["web-1"]; got.Status.DisruptionsAllowed != 0 || !noted {
		t.Fatalf("budget after eviction: %+v", got.Status)
	}
	if len(got.Status.Conditions) != 1 || got.Status.Conditions[0].Reason != policyv1.InsufficientPodsReason {
		t.Fatalf("conditions after the last disruption: %+v", got.Status.Conditions)
	}
}

// TestEvictionWithClientGo uses client-go's typed Evict, as kubectl drain
// does, for a pod no budget covers.
func TestEvictionWithClientGo(t *testing.T) {
	ts := startTestServer(t)
	c := ts.client(t)
	ctx := context.Background()
	runningPod(t, c, "lonely", true)
	err := c.PolicyV1().Evictions("default").Evict(ctx, &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: "lonely", Namespace: "default"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.CoreV1().Pods("default").Get(ctx, "lonely", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("evicted pod still there: %v", err)
	}
}

// TestEvictionCases covers kube's other answers: an unready pod goes when
// the budget is met without it, a pending pod ignores budgets, two
// budgets are refused with 500, a dry run deletes nothing, and the names
// must agree.
func TestEvictionCases(t *testing.T) {
	ts := startTestServer(t)
	c := ts.client(t)
	ctx := context.Background()
	gone := func(name string) bool {
		_, err := c.CoreV1().Pods("default").Get(ctx, name, metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	}
	budget(t, c, "web-pdb", policyv1.PodDisruptionBudgetStatus{CurrentHealthy: 1, DesiredHealthy: 1, ExpectedPods: 2})

	runningPod(t, c, "unready", false)
	code, _, body := ts.do(t, http.MethodPost, evictionPath+"unready/eviction", jsonBody, evictionBody("unready"))
	if code != http.StatusCreated || !gone("unready") {
		t.Fatalf("unready pod with the budget met: %d %s", code, body)
	}

	runningPod(t, c, "ready", true)
	code, _, body = ts.do(t, http.MethodPost, evictionPath+"ready/eviction?dryRun=All", jsonBody, evictionBody("ready"))
	wantStatus(t, "dry run against a full budget", code, body, http.StatusTooManyRequests, "disruption budget")

	code, _, body = ts.do(t, http.MethodPost, evictionPath+"ready/eviction", jsonBody, evictionBody("other"))
	wantStatus(t, "name mismatch", code, body, http.StatusBadRequest, "name in URL does not match name in Eviction object")

	code, _, body = ts.do(t, http.MethodPost, evictionPath+"missing/eviction", jsonBody, evictionBody("missing"))
	wantStatus(t, "missing pod", code, body, http.StatusNotFound, `pods "missing" not found`)

	if _, err := c.CoreV1().Pods("default").Create(ctx, &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "pending", Labels: map[string]string{"app": "web"}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	code, _, body = ts.do(t, http.MethodPost, evictionPath+"pending/eviction", jsonBody, evictionBody("pending"))
	if code != http.StatusCreated || !gone("pending") {
		t.Fatalf("pending pod: %d %s", code, body)
	}

	budget(t, c, "second", policyv1.PodDisruptionBudgetStatus{DisruptionsAllowed: 5})
	code, _, body = ts.do(t, http.MethodPost, evictionPath+"ready/eviction", jsonBody, evictionBody("ready"))
	wantStatus(t, "two budgets", code, body, http.StatusInternalServerError,
		"This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.")
	if gone("ready") {
		t.Fatal("a refused eviction deleted the pod")
	}
}
