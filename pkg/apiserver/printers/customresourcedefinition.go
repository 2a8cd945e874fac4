package printers

import (
	"strings"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// CustomResourceDefinitions is kube-apiserver 1.37's Table for CRDs:
// NAME, SCOPE, VERSIONS, CREATED AT, and wide GROUP, KIND, SHORTNAMES,
// ESTABLISHED.
var CustomResourceDefinitions = printer{columns: crdColumns, cells: crdCells}.table

var crdColumns = []metav1.TableColumnDefinition{
	nameCol(),
	col("Scope", "string", "Cluster/Namespaced", 0),
	col("Versions", "string", "Served versions", 0),
	col("Created At", "date", ageDoc, 0),
	col("Group", "string", "API group", 1),
	col("Kind", "string", "CustomResource kind", 1),
	col("ShortNames", "string", "Short names", 1),
	col("Established", "boolean", "Established status", 1),
}

// crdCells lists the served versions, the storage one marked
// "(storage)", in the CRD's order.
func crdCells(obj runtime.Object, _ time.Time) ([]interface{}, error) {
	crd := obj.(*apiextensionsv1.CustomResourceDefinition)
	var versions []string
	for _, v := range crd.Spec.Versions {
		if !v.Served {
			continue
		}
		name := v.Name
		if v.Storage {
			name += "(storage)"
		}
		versions = append(versions, name)
	}
	established := false
	for _, c := range crd.Status.Conditions {
		if c.Type == apiextensionsv1.Established {
			established = c.Status == apiextensionsv1.ConditionTrue
		}
	}
	return []interface{}{crd.Name, string(crd.Spec.Scope), strings.Join(versions, ","),
		crd.CreationTimestamp.UTC().Format(time.RFC3339), crd.Spec.Group, crd.Spec.Names.Kind,
		strings.Join(crd.Spec.Names.ShortNames, ","), established}, nil
}
