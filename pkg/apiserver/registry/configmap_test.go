package registry

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

const configKeyMsg = "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')"

func TestConfigMapValidate(t *testing.T) {
	s := configMapStrategy{}
	for _, tc := range []struct {
		name string
		cm   corev1.ConfigMap
		want []string
	}{
		{"valid", corev1.ConfigMap{ObjectMeta: objMeta("app-config", "default"),
			Data: map[string]string{"LOG_LEVEL": "debug", "config.yaml": "port: 8080\n"}, BinaryData: map[string][]byte{"blob": []byte("hello")}}, nil},
		{"bad name", corev1.ConfigMap{ObjectMeta: objMeta("Bad_Name", "default")},
			[]string{`metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`}},
		{"bad keys", corev1.ConfigMap{ObjectMeta: objMeta("c", "default"),
			Data: map[string]string{"a b": "1"}, BinaryData: map[string][]byte{"x/y": nil}},
			[]string{`data[a b]: Invalid value: "a b": ` + configKeyMsg, `binaryData[x/y]: Invalid value: "x/y": ` + configKeyMsg}},
		{"dot keys", corev1.ConfigMap{ObjectMeta: objMeta("c", "default"), Data: map[string]string{"..": "1"}},
			[]string{`data[..]: Invalid value: "..": must not be '..'`}},
		{"duplicate across data and binaryData", corev1.ConfigMap{ObjectMeta: objMeta("c", "default"),
			Data: map[string]string{"k": "v"}, BinaryData: map[string][]byte{"k": []byte("v")}},
			[]string{`data[k]: Invalid value: "k": duplicate of key present in binaryData`}},
		{"too large", corev1.ConfigMap{ObjectMeta: objMeta("c", "default"),
			Data: map[string]string{"a": strings.Repeat("x", corev1.MaxSecretSize)}, BinaryData: map[string][]byte{"b": []byte("y")}},
			[]string{`[]: Too long: may not be more than 1048576 bytes`}}, // kube's empty path renders as "[]"
		{"no namespace", corev1.ConfigMap{ObjectMeta: objMeta("c", "")}, []string{"metadata.namespace: Required value"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s.PrepareForCreate(&tc.cm)
			wantErrors(t, s.Validate(&tc.cm), tc.want...)
		})
	}
}

func TestConfigMapImmutable(t *testing.T) {
	s := configMapStrategy{}
	frozen := corev1.ConfigMap{ObjectMeta: storedMeta("frozen", "default"), Data: map[string]string{"k": "v1"}, Immutable: ptr(true)}
	const forbidden = "Forbidden: field is immutable when `immutable` is set"
	for _, tc := range []struct {
		name   string
		change func(cm *corev1.ConfigMap)
		want   []string
	}{
		{"labels may change", func(cm *corev1.ConfigMap) { cm.Labels = map[string]string{"a": "b"} }, nil},
		{"data", func(cm *corev1.ConfigMap) { cm.Data["k"] = "v2" }, []string{"data: " + forbidden}},
		{"binaryData", func(cm *corev1.ConfigMap) { cm.BinaryData = map[string][]byte{"b": nil} }, []string{"binaryData: " + forbidden}},
		{"immutable false", func(cm *corev1.ConfigMap) { cm.Immutable = ptr(false) }, []string{"immutable: " + forbidden}},
		{"immutable removed", func(cm *corev1.ConfigMap) { cm.Immutable = nil }, []string{"immutable: " + forbidden}},
		{"all at once", func(cm *corev1.ConfigMap) {
			cm.Immutable = nil
			cm.Data = nil
			cm.BinaryData = map[string][]byte{"b": nil}
		},
			[]string{"immutable: " + forbidden, "data: " + forbidden, "binaryData: " + forbidden}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cm := frozen.DeepCopy()
			tc.change(cm)
			s.PrepareForUpdate(cm, &frozen)
			wantErrors(t, s.ValidateUpdate(cm, &frozen), tc.want...)
		})
	}
	// A mutable ConfigMap may change everything, and may become immutable.
	mutable := frozen.DeepCopy()
	mutable.Immutable = nil
	cm := mutable.DeepCopy()
	cm.Data = map[string]string{"other": "x"}
	cm.Immutable = ptr(true)
	wantErrors(t, s.ValidateUpdate(cm, mutable))
}
