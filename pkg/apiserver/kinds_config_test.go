package apiserver

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Handler-level tests of configmaps, secrets and serviceaccounts through
// HTTP, against what kube-apiserver 1.37 answers
// (../shared/reference/kinds-crd-ssa-1.37.md sections 1, 2, 4 and 21).

const (
	configMaps      = "/api/v1/namespaces/default/configmaps"
	secretsPath     = "/api/v1/namespaces/default/secrets"
	serviceAccounts = "/api/v1/namespaces/default/serviceaccounts"
	tableOnly       = "application/json;as=Table;v=v1;g=meta.k8s.io"
)

// mustDo sends a request and fails unless it gets wantCode.
func (ts *testServer) mustDo(t *testing.T, wantCode int, method, path, contentType, body string, header ...string) string {
	t.Helper()
	code, _, got := ts.do(t, method, path, contentType, body, header...)
	if code != wantCode {
		t.Fatalf("%s %s: %d, want %d: %s", method, path, code, wantCode, got)
	}
	return got
}

// wantInvalidStatus checks a 422 Status's message and its causes (reason,
// field, message), in order.
func wantInvalidStatus(t *testing.T, body, message string, causes ...metav1.StatusCause) {
	t.Helper()
	var st metav1.Status
	if err := json.Unmarshal([]byte(body), &st); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	if st.Code != 422 || st.Reason != metav1.StatusReasonInvalid || st.Message != message {
		t.Errorf("status %d %s %q\nwant 422 Invalid %q", st.Code, st.Reason, st.Message, message)
	}
	if st.Details == nil || !reflect.DeepEqual(st.Details.Causes, causes) {
		t.Errorf("causes = %+v\nwant %+v", st.Details, causes)
	}
}

func TestConfigMapImmutableThroughHTTP(t *testing.T) {
	ts := startTestServer(t)
	ts.mustDo(t, 201, "POST", configMaps, "application/json",
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"frozen"},"data":{"k":"v1"},"immutable":true}`)

	forbidden := "Forbidden: field is immutable when `immutable` is set"
	body := ts.mustDo(t, 422, "PATCH", configMaps+"/frozen", mergePatch, `{"data":{"k":"v2"}}`)
	wantInvalidStatus(t, body, "ConfigMap \"frozen\" is invalid: data: "+forbidden,
		metav1.StatusCause{Type: metav1.CauseType(field.ErrorTypeForbidden), Message: forbidden, Field: "data"})
	body = ts.mustDo(t, 422, "PATCH", configMaps+"/frozen", mergePatch, `{"immutable":false}`)
	wantInvalidStatus(t, body, "ConfigMap \"frozen\" is invalid: immutable: "+forbidden,
		metav1.StatusCause{Type: metav1.CauseType(field.ErrorTypeForbidden), Message: forbidden, Field: "immutable"})
	// Metadata may still change.
	ts.mustDo(t, 200, "PATCH", configMaps+"/frozen", mergePatch, `{"metadata":{"labels":{"a":"b"}}}`)

	// A mutable ConfigMap made immutable by a write is frozen from then on.
	ts.mustDo(t, 201, "POST", configMaps, "application/json", `{"metadata":{"name":"later"},"data":{"k":"v1"}}`)
	ts.mustDo(t, 200, "PATCH", configMaps+"/later", mergePatch, `{"data":{"k":"v2"},"immutable":true}`)
	var cm corev1.ConfigMap
	if err := json.Unmarshal([]byte(ts.mustDo(t, 200, "GET", configMaps+"/later", "", "")), &cm); err != nil {
		t.Fatal(err)
	}
	cm.Data["k"] = "v3"
	b, _ := json.Marshal(&cm)
	body = ts.mustDo(t, 422, "PUT", configMaps+"/later", "application/json", string(b))
	wantInvalidStatus(t, body, "ConfigMap \"later\" is invalid: data: "+forbidden,
		metav1.StatusCause{Type: metav1.CauseType(field.ErrorTypeForbidden), Message: forbidden, Field: "data"})
}

func TestConfigMapValidationThroughHTTP(t *testing.T) {
	ts := startTestServer(t)
	body := ts.mustDo(t, 422, "POST", configMaps, "application/json",
		`{"metadata":{"name":"dup"},"data":{"k":"v"},"binaryData":{"k":"dg=="}}`)
	wantInvalidStatus(t, body, `ConfigMap "dup" is invalid: data[k]: Invalid value: "k": duplicate of key present in binaryData`,
		metav1.StatusCause{Type: metav1.CauseTypeFieldValueInvalid, Message: `Invalid value: "k": duplicate of key present in binaryData`, Field: "data[k]"})
}

func TestSecretStringDataThroughHTTP(t *testing.T) {
	ts := startTestServer(t)
	ts.mustDo(t, 201, "POST", secretsPath, "application/json",
		`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"db-creds"},"stringData":{"username":"admin","password":"s3cr3t"},"data":{"extra":"ZXh0cmE=","password":"b2xk"}}`)
	body := ts.mustDo(t, 200, "GET", secretsPath+"/db-creds", "", "")
	var got map[string]interface{}
	if err := json.Unmarshal([]byte(body), &got); err != nil {
		t.Fatal(err)
	}
	wantData := map[string]interface{}{"extra": "ZXh0cmE=", "password": "czNjcjN0", "username": "YWRtaW4="}
	if !reflect.DeepEqual(got["data"], wantData) || got["type"] != "Opaque" || got["stringData"] != nil {
		t.Errorf("stored secret: %s", body)
	}

	// An update's stringData is folded as well.
	ts.mustDo(t, 200, "PATCH", secretsPath+"/db-creds", mergePatch, `{"stringData":{"token":"t"}}`)
	body = ts.mustDo(t, 200, "GET", secretsPath+"/db-creds", "", "")
	if !strings.Contains(body, `"token":"dA=="`) || strings.Contains(body, "stringData") {
		t.Errorf("after patching stringData: %s", body)
	}
}

func TestSecretTypeThroughHTTP(t *testing.T) {
	ts := startTestServer(t)
	ts.mustDo(t, 201, "POST", secretsPath, "application/json", `{"metadata":{"name":"db-creds"},"data":{"extra":"ZXh0cmE="}}`)

	body := ts.mustDo(t, 422, "PATCH", secretsPath+"/db-creds", mergePatch, `{"type":"kubernetes.io/tls"}`)
	wantInvalidStatus(t, body,
		`Secret "db-creds" is invalid: [type: Invalid value: "kubernetes.io/tls": field is immutable, data[tls.crt]: Required value, data[tls.key]: Required value]`,
		metav1.StatusCause{Type: metav1.CauseTypeFieldValueInvalid, Message: `Invalid value: "kubernetes.io/tls": field is immutable`, Field: "type"},
		metav1.StatusCause{Type: metav1.CauseTypeFieldValueRequired, Message: "Required value", Field: "data[tls.crt]"},
		metav1.StatusCause{Type: metav1.CauseTypeFieldValueRequired, Message: "Required value", Field: "data[tls.key]"})

	body = ts.mustDo(t, 422, "POST", secretsPath, "application/json",
		`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"bad-tls"},"type":"kubernetes.io/tls","data":{"tls.crt":"Q0VSVA=="}}`)
	wantInvalidStatus(t, body, `Secret "bad-tls" is invalid: data[tls.key]: Required value`,
		metav1.StatusCause{Type: metav1.CauseTypeFieldValueRequired, Message: "Required value", Field: "data[tls.key]"})

	// The type is a field selector, as in kube-apiserver.
	ts.mustDo(t, 201, "POST", secretsPath, "application/json",
		`{"metadata":{"name":"web-tls"},"type":"kubernetes.io/tls","data":{"tls.crt":"Q0VSVA==","tls.key":"S0VZ"}}`)
	var list corev1.SecretList
	if err := json.Unmarshal([]byte(ts.mustDo(t, 200, "GET", secretsPath+"?fieldSelector=type%3Dkubernetes.io%2Ftls", "", "")), &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 1 || list.Items[0].Name != "web-tls" {
		t.Errorf("type=kubernetes.io/tls selected %d items: %+v", len(list.Items), list.Items)
	}
}

// tableOf GETs path as a Table and returns its header (name/type/format)
// and the first row's cells as JSON.
func tableOf(t *testing.T, ts *testServer, path string) (header []string, firstRow string) {
	t.Helper()
	var table metav1.Table
	if err := json.Unmarshal([]byte(ts.mustDo(t, 200, "GET", path, "", "", "Accept", tableOnly)), &table); err != nil {
		t.Fatal(err)
	}
	for _, c := range table.ColumnDefinitions {
		header = append(header, c.Name+"/"+c.Type+"/"+c.Format)
	}
	if len(table.Rows) == 0 {
		t.Fatalf("%s: no rows", path)
	}
	b, _ := json.Marshal(table.Rows[0].Cells)
	return header, string(b)
}

func TestConfigKindsTables(t *testing.T) {
	ts := startTestServer(t)
	ts.mustDo(t, 201, "POST", configMaps, "application/json",
		`{"metadata":{"name":"app-config"},"data":{"LOG_LEVEL":"debug","config.yaml":"port: 8080\n"},"binaryData":{"blob":"aGVsbG8="}}`)
	ts.mustDo(t, 201, "POST", secretsPath, "application/json", `{"metadata":{"name":"db-creds"},"stringData":{"a":"1","b":"2","c":"3"}}`)
	ts.mustDo(t, 201, "POST", serviceAccounts, "application/json", `{"metadata":{"name":"builder"}}`)

	for _, tc := range []struct {
		path, header, cellsPrefix string
	}{
		{configMaps + "?limit=500", "Name/string/name Data/string/ Age/string/", `["app-config",3,"`},
		{secretsPath + "?limit=500", "Name/string/name Type/string/ Data/string/ Age/string/", `["db-creds","Opaque",3,"`},
		{serviceAccounts + "/builder", "Name/string/name Age/string/", `["builder","`},
	} {
		header, row := tableOf(t, ts, tc.path)
		if strings.Join(header, " ") != tc.header || !strings.HasPrefix(row, tc.cellsPrefix) {
			t.Errorf("%s: columns %v, first row %s\nwant %s, %s...", tc.path, header, row, tc.header, tc.cellsPrefix)
		}
	}
}

// Discovery lists the three kinds as kube-apiserver does, storage version
// hashes included.
func TestConfigKindsDiscovery(t *testing.T) {
	ts := startTestServer(t)
	var list metav1.APIResourceList
	if err := json.Unmarshal([]byte(ts.mustDo(t, 200, "GET", "/api/v1", "", "")), &list); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"configmaps":      `{"name":"configmaps","singularName":"configmap","namespaced":true,"kind":"ConfigMap","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["cm"],"storageVersionHash":"qFsyl6wFWjQ="}`,
		"secrets":         `{"name":"secrets","singularName":"secret","namespaced":true,"kind":"Secret","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"storageVersionHash":"S6u1pOWzb84="}`,
		"serviceaccounts": `{"name":"serviceaccounts","singularName":"serviceaccount","namespaced":true,"kind":"ServiceAccount","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["sa"],"storageVersionHash":"pbx9ZvyFpBE="}`,
	}
	for _, r := range list.APIResources {
		w, ok := want[r.Name]
		if !ok {
			continue
		}
		delete(want, r.Name)
		if b, _ := json.Marshal(r); string(b) != w {
			t.Errorf("discovery entry:\n got %s\nwant %s", b, w)
		}
	}
	if len(want) != 0 {
		t.Errorf("not in discovery: %v", want)
	}
}

// A TLS Secret whose certificate is not PEM is stored with the warning
// kube-apiserver sends (crypto/tls's error), on create and update alike;
// a good pair, other types and status-free reads carry none.
func TestSecretTLSWarningThroughHTTP(t *testing.T) {
	ts := startTestServer(t)
	const want = `299 - "tls: failed to find any PEM data in certificate input"`
	bad := `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"web-tls"},"type":"kubernetes.io/tls","data":{"tls.crt":"Q0VSVA==","tls.key":"S0VZ"}}`
	for _, tc := range []struct {
		method, path, ctype, body string
		code                      int
		warnings                  []string
	}{
		{"POST", secretsPath, "application/json", bad, http.StatusCreated, []string{want}},
		{"PUT", secretsPath + "/web-tls", "application/json", bad, http.StatusOK, []string{want}},
		{"PATCH", secretsPath + "/web-tls", mergePatch, `{"metadata":{"labels":{"a":"b"}}}`, http.StatusOK, []string{want}},
		{"GET", secretsPath + "/web-tls", "", "", http.StatusOK, nil},
		{"POST", secretsPath, "application/json", `{"metadata":{"name":"opaque"},"data":{"tls.crt":"Q0VSVA=="}}`, http.StatusCreated, nil},
		{"POST", secretsPath, "application/json", goodTLSSecret(t), http.StatusCreated, nil},
	} {
		code, warnings, body := ts.doHeaders(t, tc.method, tc.path, tc.ctype, tc.body)
		if code != tc.code || !slices.Equal(warnings, tc.warnings) {
			t.Errorf("%s %s: %d %q, want %d %q\n%s", tc.method, tc.path, code, warnings, tc.code, tc.warnings, body)
		}
	}
}

// goodTLSSecret is a kubernetes.io/tls Secret with a real key pair.
func goodTLSSecret(t *testing.T) string {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), NotBefore: time.Now(), NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	s := corev1.Secret{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: metav1.ObjectMeta{Name: "good-tls"},
		Type:       corev1.SecretTypeTLS,
		Data: map[string][]byte{
			corev1.TLSCertKey:       pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
			corev1.TLSPrivateKeyKey: pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}),
		},
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// generateName names an object only when the client gave no name: a
// named create that collides is 409 AlreadyExists even with generateName
// set (a StatefulSet's pods carry both), never stored under another name.
func TestGenerateNameOnlyWithoutName(t *testing.T) {
	ts := startTestServer(t)
	named := `{"metadata":{"name":"web-1","generateName":"web-"}}`
	ts.mustDo(t, 201, "POST", configMaps, "application/json", named)
	body := ts.mustDo(t, 409, "POST", configMaps, "application/json", named)
	if !strings.Contains(body, `configmaps \"web-1\" already exists`) {
		t.Errorf("second named create: %s", body)
	}
	var cm corev1.ConfigMap
	if err := json.Unmarshal([]byte(ts.mustDo(t, 201, "POST", configMaps, "application/json", `{"metadata":{"generateName":"web-"}}`)), &cm); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(cm.Name, "web-") || len(cm.Name) != len("web-")+5 {
		t.Errorf("generated name %q", cm.Name)
	}
	var list corev1.ConfigMapList
	if err := json.Unmarshal([]byte(ts.mustDo(t, 200, "GET", configMaps, "", "")), &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 2 {
		t.Errorf("%d configmaps stored, want web-1 and one generated", len(list.Items))
	}
}
