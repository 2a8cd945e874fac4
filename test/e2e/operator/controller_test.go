package operator

import (
	"context"
	"fmt"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/recorder"
)

const (
	// fieldOwner is the field manager of the operator's applies.
	fieldOwner = "memcached-operator"
	// conditionAvailable is the status condition the operator keeps.
	conditionAvailable = "Available"
)

// memcachedReconciler is the reconciler kubebuilder's tutorial builds:
// each Memcached owns a Deployment of spec.size memcached pods (created
// and updated through CreateOrUpdate) and a ConfigMap holding its
// settings (written through server-side apply); its status reports the
// Deployment's ready replicas and an Available condition; events say
// when the Deployment was created or scaled.
type memcachedReconciler struct {
	client client.Client
	scheme *runtime.Scheme
	events recorder.EventRecorder
}

func (r *memcachedReconciler) setup(mgr ctrl.Manager) error {
	r.client, r.scheme = mgr.GetClient(), mgr.GetScheme()
	r.events = mgr.GetEventRecorder(fieldOwner)
	return ctrl.NewControllerManagedBy(mgr).
		For(&Memcached{}).
		Owns(&appsv1.Deployment{}).
		Owns(&corev1.ConfigMap{}).
		Complete(r)
}

func (r *memcachedReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var m Memcached
	if err := r.client.Get(ctx, req.NamespacedName, &m); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !m.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil // the garbage collector removes what it owns
	}
	if err := r.applyConfigMap(ctx, &m); err != nil {
		return ctrl.Result{}, fmt.Errorf("configmap of %s: %w", req, err)
	}
	d, err := r.ensureDeployment(ctx, &m)
	if err != nil {
		return ctrl.Result{}, fmt.Errorf("deployment of %s: %w", req, err)
	}
	return ctrl.Result{}, r.updateStatus(ctx, &m, d)
}

// applyConfigMap writes the ConfigMap through server-side apply: the
// operator states the fields it owns, the server merges them.
func (r *memcachedReconciler) applyConfigMap(ctx context.Context, m *Memcached) error {
	owner := metav1ac.OwnerReference().
		WithAPIVersion(groupVersion.String()).WithKind("Memcached").
		WithName(m.Name).WithUID(m.UID).
		WithController(true).WithBlockOwnerDeletion(true)
	cm := corev1ac.ConfigMap(m.Name+"-config", m.Namespace).
		WithOwnerReferences(owner).
		WithData(map[string]string{"size": strconv.Itoa(int(m.Spec.Size)), "image": m.Spec.Image})
	return r.client.Apply(ctx, cm, client.FieldOwner(fieldOwner), client.ForceOwnership)
}

// ensureDeployment creates or updates the Deployment, controlled by m,
// and records an event when it creates or scales it.
func (r *memcachedReconciler) ensureDeployment(ctx context.Context, m *Memcached) (*appsv1.Deployment, error) {
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: m.Name, Namespace: m.Namespace}}
	var scaledFrom int32
	op, err := controllerutil.CreateOrUpdate(ctx, r.client, d, func() error {
		labels := map[string]string{"app.kubernetes.io/name": "memcached", "app.kubernetes.io/instance": m.Name}
		if d.CreationTimestamp.IsZero() {
			d.Spec.Selector = &metav1.LabelSelector{MatchLabels: labels} // immutable once created
		}
		if d.Spec.Replicas != nil {
			scaledFrom = *d.Spec.Replicas
		}
		d.Spec.Replicas = &m.Spec.Size
		d.Spec.Template.Labels = labels
		d.Spec.Template.Spec.Containers = []corev1.Container{{
			Name: "memcached", Image: m.Spec.Image, Command: []string{"memcached", "--memory-limit=64", "-o", "modern", "-v"},
			Ports: []corev1.ContainerPort{{ContainerPort: 11211, Name: "memcached"}},
		}}
		return controllerutil.SetControllerReference(m, d, r.scheme)
	})
	switch {
	case err != nil:
		return nil, err
	case op == controllerutil.OperationResultCreated:
		r.events.Eventf(m, d, corev1.EventTypeNormal, "DeploymentCreated", "Create", "created Deployment %s with %d replicas", d.Name, m.Spec.Size)
	case op == controllerutil.OperationResultUpdated && scaledFrom != m.Spec.Size:
		r.events.Eventf(m, d, corev1.EventTypeNormal, "Scaled", "Scale", "scaled Deployment %s from %d to %d", d.Name, scaledFrom, m.Spec.Size)
	}
	return d, nil
}

// updateStatus reports the Deployment's ready replicas and whether all
// m asks for are ready, writing only when something changed.
func (r *memcachedReconciler) updateStatus(ctx context.Context, m *Memcached, d *appsv1.Deployment) error {
	cond := metav1.Condition{Type: conditionAvailable, Status: metav1.ConditionFalse, Reason: "Progressing",
		Message: fmt.Sprintf("%d of %d replicas ready", d.Status.ReadyReplicas, m.Spec.Size), ObservedGeneration: m.Generation}
	if d.Status.ReadyReplicas == m.Spec.Size && d.Status.ObservedGeneration >= d.Generation {
		cond.Status, cond.Reason = metav1.ConditionTrue, "AllReplicasReady"
	}
	changed := meta.SetStatusCondition(&m.Status.Conditions, cond)
	if !changed && m.Status.ReadyReplicas == d.Status.ReadyReplicas {
		return nil
	}
	m.Status.ReadyReplicas = d.Status.ReadyReplicas
	return r.client.Status().Update(ctx, m)
}
