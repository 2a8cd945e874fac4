package registry

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestNamespaceCreate(t *testing.T) {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-a", Labels: map[string]string{"kubernetes.io/metadata.name": "spoofed"}}}
	ns.Status.Phase = corev1.NamespaceTerminating
	s := namespaceStrategy{}
	s.PrepareForCreate(ns)
	if ns.Status.Phase != corev1.NamespaceActive || len(ns.Spec.Finalizers) != 1 || ns.Spec.Finalizers[0] != "kubernetes" ||
		ns.Labels["kubernetes.io/metadata.name"] != "team-a" {
		t.Errorf("namespace after create: %+v", ns)
	}
	wantErrors(t, s.Validate(ns))
	if namespaces().Generation != nil {
		t.Error("namespaces have no generation")
	}
}

func TestNamespaceValidation(t *testing.T) {
	cases := []struct {
		name string
		ns   corev1.Namespace
		want []string
	}{
		{"dotted name is not a DNS label (kube 1.37 wording)", corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "a.b"}}, []string{
			`metadata.name: Invalid value: "a.b": must not contain dots`,
		}},
		{"namespace set", corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "b"}}, []string{
			"metadata.namespace: Forbidden: not allowed on this type",
		}},
		{"bad finalizer", corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "a"}, Spec: corev1.NamespaceSpec{Finalizers: []corev1.FinalizerName{"mine"}}}, []string{
			`spec.finalizers: Invalid value: "mine": name is neither a standard finalizer name nor is it fully qualified`,
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ns := tc.ns.DeepCopy()
			namespaceStrategy{}.PrepareForCreate(ns)
			wantErrors(t, namespaceStrategy{}.Validate(ns), tc.want...)
		})
	}
}

func TestNamespaceUpdateStatusFinalize(t *testing.T) {
	s := namespaceStrategy{}
	old := &corev1.Namespace{ObjectMeta: storedMeta("team-a", "")}
	s.PrepareForCreate(old)

	upd := old.DeepCopy()
	upd.Spec.Finalizers = nil
	upd.Status.Phase = corev1.NamespaceTerminating
	upd.Labels = map[string]string{"x": "y"}
	s.PrepareForUpdate(upd, old)
	if len(upd.Spec.Finalizers) != 1 || upd.Status.Phase != corev1.NamespaceActive || upd.Labels["kubernetes.io/metadata.name"] != "team-a" || upd.Labels["x"] != "y" {
		t.Errorf("update: %+v", upd)
	}
	wantErrors(t, s.ValidateUpdate(upd, old))

	st := old.DeepCopy()
	st.Status.Phase = corev1.NamespaceTerminating
	s.PrepareForStatusUpdate(st, old)
	wantErrors(t, s.ValidateStatusUpdate(st, old), `status.Phase: Invalid value: "Terminating": may only be 'Active' if `+"`deletionTimestamp`"+` is empty`)
	now := metav1.Now()
	st.DeletionTimestamp, old.DeletionTimestamp = &now, &now
	wantErrors(t, s.ValidateStatusUpdate(st, old))

	fin := old.DeepCopy()
	fin.Spec.Finalizers = nil
	fin.Status.Phase = corev1.NamespaceActive
	prepareForFinalize(fin, old)
	if len(fin.Spec.Finalizers) != 0 || fin.Status.Phase != old.Status.Phase {
		t.Errorf("finalize: %+v", fin)
	}
	wantErrors(t, validateFinalize(fin, old))
	fin.Spec.Finalizers = []corev1.FinalizerName{"bad"}
	wantErrors(t, validateFinalize(fin, old), `spec.finalizers[0]: Invalid value: "bad": name is neither a standard finalizer name nor is it fully qualified`)
}

func TestNamespaceFieldSet(t *testing.T) {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "a"}}
	namespaceStrategy{}.PrepareForCreate(ns)
	got := namespaceStrategy{}.FieldSet(ns)
	if len(got) != 3 || got["metadata.name"] != "a" || got["name"] != "a" || got["status.phase"] != "Active" {
		t.Errorf("FieldSet = %v", got)
	}
}
