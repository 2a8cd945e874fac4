package server

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/miniapi/miniapi/test/e2e/harness"
)

// waitUntil polls cond every 50ms until it holds, failing with its last
// complaint after timeout.
func waitUntil(t *testing.T, timeout time.Duration, cond func() string) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		why := cond()
		if why == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %s: %s", timeout, why)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// defaultAccount returns the uid of namespace ns's "default"
// ServiceAccount, or "" with why it is not there.
func defaultAccount(ctx context.Context, c kubernetes.Interface, ns string) (types.UID, string) {
	sa, err := c.CoreV1().ServiceAccounts(ns).Get(ctx, "default", metav1.GetOptions{})
	if err != nil {
		return "", "default ServiceAccount in " + ns + ": " + err.Error()
	}
	return sa.UID, ""
}

// TestDefaultServiceAccount: the serviceaccount controller gives every
// namespace a "default" ServiceAccount, makes it again after a delete, and
// the namespace controller removes it with its namespace.
func TestDefaultServiceAccount(t *testing.T) {
	s := harness.Start(t)
	c := s.Client()
	ctx := ctxFor(t)

	waitUntil(t, 10*time.Second, func() string { _, why := defaultAccount(ctx, c, "default"); return why })
	if _, err := c.CoreV1().Namespaces().Create(ctx, namespace("sa-demo"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var first types.UID
	waitUntil(t, 10*time.Second, func() string {
		var why string
		first, why = defaultAccount(ctx, c, "sa-demo")
		return why
	})
	sa, _ := c.CoreV1().ServiceAccounts("sa-demo").Get(ctx, "default", metav1.GetOptions{})
	if len(sa.Secrets) != 0 || len(sa.Labels) != 0 {
		t.Errorf("default ServiceAccount has more than kube's: %+v", sa)
	}

	if err := c.CoreV1().ServiceAccounts("sa-demo").Delete(ctx, "default", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, 10*time.Second, func() string {
		uid, why := defaultAccount(ctx, c, "sa-demo")
		if why == "" && uid == first {
			return "the deleted ServiceAccount is still there"
		}
		return why
	})

	if err := c.CoreV1().Namespaces().Delete(ctx, "sa-demo", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, 20*time.Second, func() string {
		_, err := c.CoreV1().Namespaces().Get(ctx, "sa-demo", metav1.GetOptions{})
		if !apierrors.IsNotFound(err) {
			return "namespace sa-demo is not gone yet"
		}
		return ""
	})
	list, err := c.CoreV1().ServiceAccounts("sa-demo").List(ctx, metav1.ListOptions{})
	if err != nil || len(list.Items) != 0 {
		t.Errorf("after the namespace went: %v, %d ServiceAccounts left", err, len(list.Items))
	}
}

// TestConfigMapAndSecretWithClientGo: what a client-go user meets:
// stringData comes back as data, and an immutable ConfigMap refuses
// changes with 422 Invalid.
func TestConfigMapAndSecretWithClientGo(t *testing.T) {
	s := start(t)
	c := s.Client()
	ctx := ctxFor(t)

	sec, err := c.CoreV1().Secrets("default").Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "db-creds"},
		StringData: map[string]string{"username": "admin", "password": "s3cr3t"},
		Data:       map[string][]byte{"extra": []byte("extra")},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if sec.Type != corev1.SecretTypeOpaque || len(sec.StringData) != 0 || len(sec.Data) != 3 ||
		string(sec.Data["password"]) != "s3cr3t" || string(sec.Data["username"]) != "admin" {
		t.Errorf("created secret: type %q, data %q, stringData %q", sec.Type, sec.Data, sec.StringData)
	}
	sec.Type = corev1.SecretTypeTLS
	if _, err := c.CoreV1().Secrets("default").Update(ctx, sec, metav1.UpdateOptions{}); !apierrors.IsInvalid(err) {
		t.Errorf("changing the type: %v, want Invalid", err)
	}

	yes := true
	cm, err := c.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "frozen"}, Data: map[string]string{"k": "v1"}, Immutable: &yes,
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cm.Data["k"] = "v2"
	_, err = c.CoreV1().ConfigMaps("default").Update(ctx, cm, metav1.UpdateOptions{})
	if !apierrors.IsInvalid(err) || err.Error() != "ConfigMap \"frozen\" is invalid: data: Forbidden: field is immutable when `immutable` is set" {
		t.Errorf("changing an immutable ConfigMap: %v", err)
	}
}
