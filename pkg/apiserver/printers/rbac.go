package printers

import (
	"strings"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// RoleBindings and ClusterRoleBindings are kube-apiserver's Tables for
// the RBAC bindings: NAME, ROLE, AGE, and USERS, GROUPS, SERVICEACCOUNTS
// in wide output. Roles and ClusterRoles have no columns of their own
// (Default).
var (
	RoleBindings        = printer{columns: bindingColumns(rbacv1.RoleBinding{}.SwaggerDoc()["roleRef"], "roleBinding"), cells: roleBindingCells}.table
	ClusterRoleBindings = printer{columns: bindingColumns(rbacv1.ClusterRoleBinding{}.SwaggerDoc()["roleRef"], "clusterRoleBinding"), cells: clusterRoleBindingCells}.table
)

func bindingColumns(roleDoc, kind string) []metav1.TableColumnDefinition {
	return []metav1.TableColumnDefinition{
		nameCol(),
		col("Role", "string", roleDoc, 0),
		ageCol(),
		col("Users", "string", "Users in the "+kind, 1),
		col("Groups", "string", "Groups in the "+kind, 1),
		col("ServiceAccounts", "string", "ServiceAccounts in the "+kind, 1),
	}
}

func roleBindingCells(obj runtime.Object, now time.Time) ([]interface{}, error) {
	b := obj.(*rbacv1.RoleBinding)
	return bindingCells(b.Name, b.RoleRef, b.Subjects, b.CreationTimestamp, now), nil
}

func clusterRoleBindingCells(obj runtime.Object, now time.Time) ([]interface{}, error) {
	b := obj.(*rbacv1.ClusterRoleBinding)
	return bindingCells(b.Name, b.RoleRef, b.Subjects, b.CreationTimestamp, now), nil
}

// bindingCells renders ROLE as Kind/name, and the subjects by kind; a
// service account is namespace/name, with an empty namespace when the
// subject names none.
func bindingCells(name string, ref rbacv1.RoleRef, subjects []rbacv1.Subject, created metav1.Time, now time.Time) []interface{} {
	var users, groups, sas []string
	for _, s := range subjects {
		switch s.Kind {
		case rbacv1.UserKind:
			users = append(users, s.Name)
		case rbacv1.GroupKind:
			groups = append(groups, s.Name)
		case rbacv1.ServiceAccountKind:
			sas = append(sas, s.Namespace+"/"+s.Name)
		}
	}
	return []interface{}{name, ref.Kind + "/" + ref.Name, age(created, now),
		strings.Join(users, ", "), strings.Join(groups, ", "), strings.Join(sas, ", ")}
}
