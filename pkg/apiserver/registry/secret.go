package registry

// Secrets: stringData is folded into data and never stored, the type
// defaults to Opaque and never changes, the built-in types' required keys
// must be there, and an immutable Secret keeps its data for good. A TLS
// Secret whose certificate and key do not make a pair is stored with a
// warning, as kube-apiserver does.

import (
	"crypto/tls"
	"encoding/json"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/miniapi/miniapi/pkg/apiserver/printers"
)

// secrets is core/v1 secrets.
func secrets() *Resource {
	s := secretStrategy{}
	return &Resource{
		Version: "v1", Resource: "secrets", Kind: "Secret", ListKind: "SecretList", Singular: "secret",
		Namespaced: true,
		New:        func() runtime.Object { return &corev1.Secret{} },
		NewList:    func() runtime.Object { return &corev1.SecretList{} },

		Strategy: s,
		Table:    printers.Secrets,
		FieldSet: s.FieldSet,
	}
}

type secretStrategy struct{}

// defaultSecret does what kube-apiserver does while decoding a v1 Secret:
// each stringData entry replaces the data entry of the same key (the
// JSON encoding makes it base64), stringData is dropped, and an empty type
// is Opaque.
func defaultSecret(s *corev1.Secret) {
	if len(s.StringData) > 0 && s.Data == nil {
		s.Data = make(map[string][]byte, len(s.StringData))
	}
	for k, v := range s.StringData {
		s.Data[k] = []byte(v)
	}
	s.StringData = nil
	if s.Type == "" {
		s.Type = corev1.SecretTypeOpaque
	}
}

// PrepareForCreate folds stringData and defaults the type.
func (secretStrategy) PrepareForCreate(obj runtime.Object) { defaultSecret(obj.(*corev1.Secret)) }

// PrepareForUpdate does the same for the new version: a write may carry
// stringData too.
func (secretStrategy) PrepareForUpdate(obj, _ runtime.Object) { defaultSecret(obj.(*corev1.Secret)) }

// Warnings: a kubernetes.io/tls Secret's tls.crt and tls.key must load as
// a PEM key pair; the warning is Go's crypto/tls error, as kube sends it.
func (secretStrategy) Warnings(obj runtime.Object) []string {
	s := obj.(*corev1.Secret)
	if s.Type != corev1.SecretTypeTLS {
		return nil
	}
	if _, err := tls.X509KeyPair(s.Data[corev1.TLSCertKey], s.Data[corev1.TLSPrivateKeyKey]); err != nil {
		return []string{err.Error()}
	}
	return nil
}

// Validate checks a new Secret.
func (secretStrategy) Validate(obj runtime.Object) field.ErrorList {
	s := obj.(*corev1.Secret)
	errs := ValidateMetaCreate(&s.ObjectMeta, true, apimachineryvalidation.NameIsDNSSubdomain)
	return append(errs, validateSecretData(s)...)
}

// ValidateUpdate: the type never changes, and an immutable Secret keeps
// its data and its immutable flag. The new version must still be valid
// (a changed type is also checked against its required keys, as kube's).
func (secretStrategy) ValidateUpdate(obj, old runtime.Object) field.ErrorList {
	s, o := obj.(*corev1.Secret), old.(*corev1.Secret)
	errs := ValidateMetaUpdate(&s.ObjectMeta, &o.ObjectMeta)
	errs = append(errs, apimachineryvalidation.ValidateImmutableField(s.Type, o.Type, field.NewPath("type"))...)
	if isTrue(o.Immutable) {
		errs = append(errs, immutableFlagKept(s.Immutable)...)
		if !apiequality.Semantic.DeepEqual(s.Data, o.Data) {
			errs = append(errs, forbiddenWhenImmutable(field.NewPath("data")))
		}
	}
	return append(errs, validateSecretData(s)...)
}

// FieldSet offers metadata and type, as kube-apiserver
// (kubectl get secrets --field-selector type=kubernetes.io/tls).
func (secretStrategy) FieldSet(obj runtime.Object) fields.Set {
	s := obj.(*corev1.Secret)
	return mergeFields(metaFields(s, true), fields.Set{"type": string(s.Type)})
}

// validateSecretData checks the keys, the total size and what the
// Secret's type requires.
func validateSecretData(s *corev1.Secret) field.ErrorList {
	var errs field.ErrorList
	dataPath := field.NewPath("data")
	size := 0
	for _, key := range sortedKeys(s.Data) {
		errs = append(errs, validateConfigKey(dataPath, key)...)
		size += len(s.Data[key])
	}
	if size > corev1.MaxSecretSize {
		errs = append(errs, field.TooLong(dataPath, "", corev1.MaxSecretSize))
	}
	return append(errs, validateSecretType(s, dataPath)...)
}

// validateSecretType checks the keys (or annotation) each built-in type
// requires; other types require nothing.
func validateSecretType(s *corev1.Secret, dataPath *field.Path) field.ErrorList {
	switch s.Type {
	case corev1.SecretTypeServiceAccountToken:
		if s.Annotations[corev1.ServiceAccountNameKey] == "" {
			return field.ErrorList{field.Required(field.NewPath("metadata", "annotations").Key(corev1.ServiceAccountNameKey), "")}
		}
	case corev1.SecretTypeDockercfg:
		return requireJSONKey(s.Data, dataPath, corev1.DockerConfigKey)
	case corev1.SecretTypeDockerConfigJson:
		return requireJSONKey(s.Data, dataPath, corev1.DockerConfigJsonKey)
	case corev1.SecretTypeBasicAuth:
		// Either may be empty, but one of them must be there.
		_, user := s.Data[corev1.BasicAuthUsernameKey]
		_, password := s.Data[corev1.BasicAuthPasswordKey]
		if !user && !password {
			return field.ErrorList{
				field.Required(dataPath.Key(corev1.BasicAuthUsernameKey), ""),
				field.Required(dataPath.Key(corev1.BasicAuthPasswordKey), ""),
			}
		}
	case corev1.SecretTypeSSHAuth:
		if len(s.Data[corev1.SSHAuthPrivateKey]) == 0 {
			return field.ErrorList{field.Required(dataPath.Key(corev1.SSHAuthPrivateKey), "")}
		}
	case corev1.SecretTypeTLS:
		var errs field.ErrorList
		for _, key := range []string{corev1.TLSCertKey, corev1.TLSPrivateKeyKey} {
			if _, ok := s.Data[key]; !ok {
				errs = append(errs, field.Required(dataPath.Key(key), ""))
			}
		}
		return errs
	}
	return nil
}

// requireJSONKey: data[key] must be there and hold a JSON object (a
// docker config); its contents are never echoed back.
func requireJSONKey(data map[string][]byte, dataPath *field.Path, key string) field.ErrorList {
	b, ok := data[key]
	if !ok {
		return field.ErrorList{field.Required(dataPath.Key(key), "")}
	}
	if err := json.Unmarshal(b, &map[string]interface{}{}); err != nil {
		return field.ErrorList{field.Invalid(dataPath.Key(key), "<secret contents redacted>", err.Error())}
	}
	return nil
}
