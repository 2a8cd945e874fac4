package ctrlruntime

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/recorder"
)

// recorderName is the reporting controller of the reconciler's events.
const recorderName = "configmap-per-deployment"

// configMapPerDeployment is the kind of reconciler kubebuilder scaffolds:
// every Deployment owns a ConfigMap "<name>-config" holding its first
// container's image, and an event on the Deployment says when the
// ConfigMap had to be created.
type configMapPerDeployment struct {
	client client.Client
	scheme *runtime.Scheme
	events recorder.EventRecorder
}

// setup registers the reconciler with mgr: For Deployments, Owns
// ConfigMaps, so a ConfigMap's change or deletion reconciles its owner.
func (r *configMapPerDeployment) setup(mgr ctrl.Manager) error {
	r.client, r.scheme = mgr.GetClient(), mgr.GetScheme()
	r.events = mgr.GetEventRecorder(recorderName)
	return ctrl.NewControllerManagedBy(mgr).
		For(&appsv1.Deployment{}).
		Owns(&corev1.ConfigMap{}).
		Complete(r)
}

func configMapName(deployment string) string { return deployment + "-config" }

func (r *configMapPerDeployment) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var d appsv1.Deployment
	if err := r.client.Get(ctx, req.NamespacedName, &d); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !d.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: configMapName(d.Name), Namespace: d.Namespace}}
	op, err := controllerutil.CreateOrUpdate(ctx, r.client, cm, func() error {
		cm.Data = map[string]string{"image": firstImage(&d)}
		return controllerutil.SetControllerReference(&d, cm, r.scheme)
	})
	if err != nil {
		return ctrl.Result{}, fmt.Errorf("configmap for deployment %s: %w", req, err)
	}
	if op == controllerutil.OperationResultCreated {
		r.events.Eventf(&d, cm, corev1.EventTypeNormal, "ConfigMapCreated", "Create", "created ConfigMap %s", cm.Name)
	}
	return ctrl.Result{}, nil
}

func firstImage(d *appsv1.Deployment) string {
	if len(d.Spec.Template.Spec.Containers) == 0 {
		return ""
	}
	return d.Spec.Template.Spec.Containers[0].Image
}
