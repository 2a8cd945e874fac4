package registry

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestServiceAccountValidate(t *testing.T) {
	s := serviceAccountStrategy{}
	wantErrors(t, s.Validate(&corev1.ServiceAccount{ObjectMeta: objMeta("builder", "default")}))
	wantErrors(t, s.Validate(&corev1.ServiceAccount{ObjectMeta: objMeta("Bad", "default")}),
		`metadata.name: Invalid value: "Bad": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`)

	old := &corev1.ServiceAccount{ObjectMeta: storedMeta("builder", "default")}
	upd := old.DeepCopy()
	upd.Name = "other"
	wantErrorContaining(t, s.ValidateUpdate(upd, old), "metadata.name: Invalid value: \"other\": field is immutable")
}

func TestServiceAccountSecretReferencesKeepOnlyNames(t *testing.T) {
	sa := &corev1.ServiceAccount{
		ObjectMeta: objMeta("builder", "default"),
		Secrets:    []corev1.ObjectReference{{Name: "tok", Namespace: "elsewhere", Kind: "Secret", UID: "u"}},
	}
	serviceAccountStrategy{}.PrepareForCreate(sa)
	if sa.Secrets[0] != (corev1.ObjectReference{Name: "tok"}) {
		t.Errorf("secrets = %+v", sa.Secrets)
	}
}
