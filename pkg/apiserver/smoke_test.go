package apiserver

import (
	"context"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestSmokeClientGo(t *testing.T) {
	ts := startTestServer(t)
	c := ts.client(t)
	ctx := context.Background()
	nss, err := c.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(nss.Items) != 4 {
		t.Fatalf("namespaces: %d", len(nss.Items))
	}
	labels := map[string]string{"app": "web"}
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Spec: appsv1.DeploymentSpec{
		Selector: &metav1.LabelSelector{MatchLabels: labels},
		Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}}}
	got, err := c.AppsV1().Deployments("default").Create(ctx, d, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("created %s rv=%s uid=%s gen=%d", got.Name, got.ResourceVersion, got.UID, got.Generation)
	g, err := c.AppsV1().Deployments("default").Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if g.ResourceVersion != got.ResourceVersion {
		t.Fatalf("rv %s vs %s", g.ResourceVersion, got.ResourceVersion)
	}
	code, ct, body := ts.do(t, "GET", "/apis/apps/v1/namespaces/default/deployments/web", "", "")
	t.Logf("%d %s %s", code, ct, body)
	code, ct, body = ts.do(t, "GET", "/apis/apps/v1/namespaces/default/deployments", "", "")
	t.Logf("%d %s %s", code, ct, body)
}

// TestDeleteOptionsBodies: client-go's typed clients label DeleteOptions
// with the resource's group version, kubectl sends bare JSON.
func TestDeleteOptionsBodies(t *testing.T) {
	ts := startTestServer(t)
	c := ts.client(t)
	ctx := context.Background()
	for _, name := range []string{"a", "b"} {
		if code, _, body := ts.do(t, "POST", deployments, "application/json", strings.Replace(webDeployment, `"name":"web"`, `"name":"`+name+`"`, 1)); code != 201 {
			t.Fatal(body)
		}
	}
	bg := metav1.DeletePropagationBackground
	if err := c.AppsV1().Deployments("default").Delete(ctx, "a", metav1.DeleteOptions{PropagationPolicy: &bg}); err != nil {
		t.Fatalf("client-go delete: %v", err)
	}
	if code, _, body := ts.do(t, "DELETE", deployments+"/b", "application/json", `{"kind":"DeleteOptions","apiVersion":"meta.k8s.io/v1","propagationPolicy":"Background"}`); code != 200 {
		t.Fatalf("JSON delete: %d %s", code, body)
	}
}

// TestDryRunAndImmortalNamespaces: a dry-run create of an existing object
// is AlreadyExists; default, kube-system and kube-public cannot be deleted.
func TestDryRunAndImmortalNamespaces(t *testing.T) {
	ts := startTestServer(t)
	if code, _, body := ts.do(t, "POST", deployments, "application/json", webDeployment); code != 201 {
		t.Fatal(body)
	}
	if code, _, body := ts.do(t, "POST", deployments+"?dryRun=All", "application/json", webDeployment); code != 409 {
		t.Errorf("dry-run create of an existing object: %d %s", code, body)
	}
	code, _, body := ts.do(t, "DELETE", "/api/v1/namespaces/default", "", "")
	if code != 403 || !strings.Contains(body, `"message":"namespaces \"default\" is forbidden: this namespace may not be deleted"`) {
		t.Errorf("delete default: %d %s", code, body)
	}
}
