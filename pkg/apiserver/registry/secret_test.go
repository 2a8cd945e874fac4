package registry

import (
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"
)

func TestSecretFoldsStringData(t *testing.T) {
	s := secretStrategy{}
	sec := &corev1.Secret{
		ObjectMeta: objMeta("db-creds", "default"),
		StringData: map[string]string{"username": "admin", "password": "s3cr3t"},
		Data:       map[string][]byte{"extra": []byte("extra"), "password": []byte("old")},
	}
	s.PrepareForCreate(sec)
	want := map[string]string{"extra": "extra", "password": "s3cr3t", "username": "admin"}
	if len(sec.Data) != len(want) {
		t.Errorf("data = %q, want %q", sec.Data, want)
	}
	for k, v := range want {
		if string(sec.Data[k]) != v {
			t.Errorf("data[%s] = %q, want %q (stringData wins)", k, sec.Data[k], v)
		}
	}
	if sec.StringData != nil {
		t.Errorf("stringData kept: %v", sec.StringData)
	}
	if sec.Type != corev1.SecretTypeOpaque {
		t.Errorf("type = %q, want Opaque", sec.Type)
	}
	wantErrors(t, s.Validate(sec))

	// An update folds too: stringData alone adds to the stored data.
	old := sec.DeepCopy()
	old.ObjectMeta = storedMeta("db-creds", "default")
	upd := old.DeepCopy()
	upd.Data = nil
	upd.StringData = map[string]string{"token": "t"}
	s.PrepareForUpdate(upd, old)
	if string(upd.Data["token"]) != "t" || upd.StringData != nil || len(upd.Data) != 1 {
		t.Errorf("after update: data %q, stringData %v", upd.Data, upd.StringData)
	}
}

func TestSecretKeepsGivenType(t *testing.T) {
	sec := &corev1.Secret{ObjectMeta: objMeta("t", "default"), Type: "example.com/custom"}
	secretStrategy{}.PrepareForCreate(sec)
	if sec.Type != "example.com/custom" {
		t.Errorf("type = %q", sec.Type)
	}
}

func TestSecretValidateTypes(t *testing.T) {
	s := secretStrategy{}
	data := func(keys ...string) map[string][]byte {
		m := map[string][]byte{}
		for _, k := range keys {
			m[k] = []byte("x")
		}
		return m
	}
	for _, tc := range []struct {
		name string
		sec  corev1.Secret
		want []string
	}{
		{"opaque", corev1.Secret{Data: data("a")}, nil},
		{"tls without key", corev1.Secret{Type: corev1.SecretTypeTLS, Data: data("tls.crt")}, []string{"data[tls.key]: Required value"}},
		{"tls empty", corev1.Secret{Type: corev1.SecretTypeTLS}, []string{"data[tls.crt]: Required value", "data[tls.key]: Required value"}},
		{"tls", corev1.Secret{Type: corev1.SecretTypeTLS, Data: data("tls.crt", "tls.key")}, nil},
		{"service account token", corev1.Secret{Type: corev1.SecretTypeServiceAccountToken},
			[]string{"metadata.annotations[kubernetes.io/service-account.name]: Required value"}},
		{"dockerconfigjson missing", corev1.Secret{Type: corev1.SecretTypeDockerConfigJson}, []string{"data[.dockerconfigjson]: Required value"}},
		{"dockerconfigjson not json", corev1.Secret{Type: corev1.SecretTypeDockerConfigJson, Data: map[string][]byte{".dockerconfigjson": []byte("{")}},
			[]string{`data[.dockerconfigjson]: Invalid value: "<secret contents redacted>": unexpected end of JSON input`}},
		{"dockerconfigjson", corev1.Secret{Type: corev1.SecretTypeDockerConfigJson, Data: map[string][]byte{".dockerconfigjson": []byte(`{"auths":{}}`)}}, nil},
		{"dockercfg missing", corev1.Secret{Type: corev1.SecretTypeDockercfg}, []string{"data[.dockercfg]: Required value"}},
		{"basic-auth empty", corev1.Secret{Type: corev1.SecretTypeBasicAuth}, []string{"data[username]: Required value", "data[password]: Required value"}},
		{"basic-auth password only", corev1.Secret{Type: corev1.SecretTypeBasicAuth, Data: data("password")}, nil},
		{"ssh-auth", corev1.Secret{Type: corev1.SecretTypeSSHAuth}, []string{"data[ssh-privatekey]: Required value"}},
		{"bad key", corev1.Secret{Data: data("bad key")}, []string{`data[bad key]: Invalid value: "bad key": ` + configKeyMsg}},
		{"too large", corev1.Secret{Data: map[string][]byte{"a": []byte(strings.Repeat("x", corev1.MaxSecretSize+1))}},
			[]string{"data: Too long: may not be more than 1048576 bytes"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.sec.ObjectMeta = objMeta("s", "default")
			s.PrepareForCreate(&tc.sec)
			wantErrors(t, s.Validate(&tc.sec), tc.want...)
		})
	}
}

func TestSecretUpdate(t *testing.T) {
	s := secretStrategy{}
	old := &corev1.Secret{ObjectMeta: storedMeta("db-creds", "default"), Type: corev1.SecretTypeOpaque, Data: map[string][]byte{"a": []byte("b")}}

	// The reference's PATCH {"type":"kubernetes.io/tls"}: three causes, in this order.
	upd := old.DeepCopy()
	upd.Type = corev1.SecretTypeTLS
	s.PrepareForUpdate(upd, old)
	wantErrors(t, s.ValidateUpdate(upd, old),
		`type: Invalid value: "kubernetes.io/tls": field is immutable`, "data[tls.crt]: Required value", "data[tls.key]: Required value")

	// Without a type, an update is an Opaque one (the default), as kube's.
	tls := &corev1.Secret{ObjectMeta: storedMeta("web-tls", "default"), Type: corev1.SecretTypeTLS, Data: map[string][]byte{"tls.crt": nil, "tls.key": nil}}
	upd = tls.DeepCopy()
	upd.Type = ""
	s.PrepareForUpdate(upd, tls)
	wantErrors(t, s.ValidateUpdate(upd, tls), `type: Invalid value: "Opaque": field is immutable`)

	frozen := old.DeepCopy()
	frozen.Immutable = ptr(true)
	const forbidden = "Forbidden: field is immutable when `immutable` is set"
	upd = frozen.DeepCopy()
	upd.StringData = map[string]string{"a": "c"}
	s.PrepareForUpdate(upd, frozen)
	wantErrors(t, s.ValidateUpdate(upd, frozen), "data: "+forbidden)
	upd = frozen.DeepCopy()
	upd.Immutable = ptr(false)
	wantErrors(t, s.ValidateUpdate(upd, frozen), "immutable: "+forbidden)
	upd = frozen.DeepCopy()
	upd.Annotations = map[string]string{"note": "metadata may change"}
	wantErrors(t, s.ValidateUpdate(upd, frozen))
}

func TestSecretFieldSet(t *testing.T) {
	sec := &corev1.Secret{ObjectMeta: objMeta("web-tls", "default"), Type: corev1.SecretTypeTLS}
	got := secrets().Fields(sec)
	want := fields.Set{"metadata.name": "web-tls", "metadata.namespace": "default", "type": "kubernetes.io/tls"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("fields = %v, want %v", got, want)
	}
}
