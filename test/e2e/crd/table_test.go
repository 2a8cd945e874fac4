package crd

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// tableAccept asks for a server-side Table, as kubectl get does.
const tableAccept = "application/json;as=Table;v=v1;g=meta.k8s.io"

// tableSummary is the reference's jq cut of a Table: its kind, apiVersion
// and metadata, each column definition (descriptions over 60 characters
// cut with "…"), and the first row's cells, one compact JSON per line.
func tableSummary(t *testing.T, r reply) string {
	t.Helper()
	if r.code != 200 || r.header.Get("Content-Type") != "application/json" {
		t.Fatalf("Table: %s", r.curlI())
	}
	var table metav1.Table
	if err := json.Unmarshal([]byte(r.body), &table); err != nil {
		t.Fatalf("Table: %v\n%s", err, r.body)
	}
	lines := []string{compactJSON(t, struct {
		Kind       string          `json:"kind"`
		APIVersion string          `json:"apiVersion"`
		Metadata   metav1.ListMeta `json:"metadata"`
	}{table.Kind, table.APIVersion, table.ListMeta})}
	for _, c := range table.ColumnDefinitions {
		if utf8.RuneCountInString(c.Description) > 60 {
			c.Description = string([]rune(c.Description)[:60]) + "…"
		}
		lines = append(lines, compactJSON(t, c))
	}
	if len(table.Rows) > 0 {
		lines = append(lines, compactJSON(t, struct {
			Cells []any `json:"cells"`
		}{table.Rows[0].Cells}))
	}
	return strings.Join(lines, "\n")
}
