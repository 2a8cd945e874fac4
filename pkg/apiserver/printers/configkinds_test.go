package printers

import (
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// descriptionPrefixes are the column descriptions as the reference file
// records them (cut at 60 characters).
func checkDescriptions(t *testing.T, cols []metav1.TableColumnDefinition, want map[string]string) {
	t.Helper()
	for _, c := range cols {
		if p, ok := want[c.Name]; ok && !strings.HasPrefix(c.Description, p) {
			t.Errorf("column %s description = %q, want it to start with %q", c.Name, c.Description, p)
		}
	}
}

func TestConfigMapTable(t *testing.T) {
	list := &corev1.ConfigMapList{
		ListMeta: metav1.ListMeta{ResourceVersion: "223"},
		Items: []corev1.ConfigMap{
			{
				ObjectMeta: metav1.ObjectMeta{Name: "app-config", CreationTimestamp: created},
				Data:       map[string]string{"LOG_LEVEL": "debug", "config.yaml": "port: 8080\n"},
				BinaryData: map[string][]byte{"blob": []byte("hello")},
			},
			{ObjectMeta: metav1.ObjectMeta{Name: "empty", CreationTimestamp: created}},
		},
	}
	table, err := ConfigMaps(list, now)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := header(table.ColumnDefinitions), []string{"Name/string/0/name", "Data/string/0", "Age/string/0"}; !reflect.DeepEqual(got, want) {
		t.Errorf("columns = %v, want %v", got, want)
	}
	checkDescriptions(t, table.ColumnDefinitions, map[string]string{
		"Name": "Name must be unique within a namespace. Is required when cre",
		"Data": "Data contains the configuration data. Each key must consist ",
		"Age":  "CreationTimestamp is a timestamp representing the server tim",
	})
	if table.ResourceVersion != "223" || len(table.Rows) != 2 {
		t.Fatalf("table rv %q with %d rows", table.ResourceVersion, len(table.Rows))
	}
	if got := cellsJSON(t, table.Rows[0]); got != `["app-config",3,"2s"]` {
		t.Errorf("cells = %s", got)
	}
	if got := cellsJSON(t, table.Rows[1]); got != `["empty",0,"2s"]` {
		t.Errorf("cells = %s", got)
	}
}

func TestSecretTable(t *testing.T) {
	s := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "db-creds", ResourceVersion: "227", CreationTimestamp: created},
		Type:       corev1.SecretTypeOpaque,
		Data:       map[string][]byte{"extra": []byte("extra"), "password": []byte("s3cr3t"), "username": []byte("admin")},
	}
	table, err := Secrets(s, now)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"Name/string/0/name", "Type/string/0", "Data/string/0", "Age/string/0"}
	if got := header(table.ColumnDefinitions); !reflect.DeepEqual(got, want) {
		t.Errorf("columns = %v, want %v", got, want)
	}
	checkDescriptions(t, table.ColumnDefinitions, map[string]string{
		"Type": "Used to facilitate programmatic handling of secret data. Mor",
		"Data": "Data contains the secret data. Each key must consist of alph",
	})
	if table.ResourceVersion != "227" {
		t.Errorf("resourceVersion = %q", table.ResourceVersion)
	}
	if got := cellsJSON(t, table.Rows[0]); got != `["db-creds","Opaque",3,"2s"]` {
		t.Errorf("cells = %s", got)
	}
}

func TestServiceAccountTable(t *testing.T) {
	sa := &corev1.ServiceAccount{
		ObjectMeta: metav1.ObjectMeta{Name: "builder", CreationTimestamp: created},
		Secrets:    []corev1.ObjectReference{{Name: "old-token"}},
	}
	table, err := ServiceAccounts(&corev1.ServiceAccountList{Items: []corev1.ServiceAccount{*sa}}, now)
	if err != nil {
		t.Fatal(err)
	}
	// kube-apiserver 1.37 has no SECRETS column (reference section 4).
	if got, want := header(table.ColumnDefinitions), []string{"Name/string/0/name", "Age/string/0"}; !reflect.DeepEqual(got, want) {
		t.Errorf("columns = %v, want %v", got, want)
	}
	if got := cellsJSON(t, table.Rows[0]); got != `["builder","2s"]` {
		t.Errorf("cells = %s", got)
	}
}
