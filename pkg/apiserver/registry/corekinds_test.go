package registry

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// The reference's answers for ResourceQuota (section 19).
func TestResourceQuotaValidation(t *testing.T) {
	s := quotaStrategy{}
	q := &corev1.ResourceQuota{ObjectMeta: objMeta("compute", "quota-demo"), Spec: corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{
		"pods": resource.MustParse("2"), "requests.cpu": resource.MustParse("1"), "limits.memory": resource.MustParse("1Gi"), "configmaps": resource.MustParse("10"),
	}}, Status: corev1.ResourceQuotaStatus{Hard: corev1.ResourceList{"pods": resource.MustParse("2")}}}
	s.PrepareForCreate(q)
	if q.Status.Hard != nil {
		t.Fatal("create kept a status")
	}
	wantErrors(t, s.Validate(q))
	old := q.DeepCopy()
	old.ObjectMeta = storedMeta("compute", "quota-demo")

	negative := old.DeepCopy()
	negative.Spec.Hard["pods"] = resource.MustParse("-1")
	wantErrors(t, s.ValidateUpdate(negative, old), `spec.hard[pods]: Invalid value: "-1": must be greater than or equal to 0`)

	qualified := old.DeepCopy()
	qualified.Spec.Hard["bogus.example.com/x"] = resource.MustParse("1")
	wantErrors(t, s.ValidateUpdate(qualified, old))
	unknown := old.DeepCopy()
	unknown.Spec.Hard["bogus"] = resource.MustParse("1")
	wantErrors(t, s.ValidateUpdate(unknown, old), `spec.hard[bogus]: Invalid value: "bogus": must be a standard resource for quota`)

	scoped := old.DeepCopy()
	scoped.Spec.Scopes = []corev1.ResourceQuotaScope{"NotAScope"}
	wantErrors(t, s.ValidateUpdate(scoped, old),
		`spec.scopes: Invalid value: ["NotAScope"]: unsupported scope`,
		`spec.scopes: Invalid value: ["NotAScope"]: field is immutable`)
}

// The reference's answers for LimitRange (section 20).
func TestLimitRangeDefaultsAndValidation(t *testing.T) {
	s := limitRangeStrategy{}
	lr := &corev1.LimitRange{ObjectMeta: objMeta("defaults", "lr-demo"), Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{{
		Type:           corev1.LimitTypeContainer,
		Default:        corev1.ResourceList{"cpu": resource.MustParse("500m"), "memory": resource.MustParse("256Mi")},
		DefaultRequest: corev1.ResourceList{"cpu": resource.MustParse("100m")},
		Max:            corev1.ResourceList{"memory": resource.MustParse("1Gi")},
	}}}}
	s.PrepareForCreate(lr)
	if got := lr.Spec.Limits[0].DefaultRequest["memory"]; got.String() != "256Mi" {
		t.Fatalf("defaultRequest memory = %s", got.String())
	}
	wantErrors(t, s.Validate(lr))

	bad := &corev1.LimitRange{ObjectMeta: objMeta("bad", "lr-demo"), Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{{
		Type: corev1.LimitTypeContainer, Default: corev1.ResourceList{"memory": resource.MustParse("2Gi")}, Max: corev1.ResourceList{"memory": resource.MustParse("1Gi")},
	}}}}
	s.PrepareForCreate(bad)
	wantErrors(t, s.Validate(bad),
		`spec.limits[0].defaultRequest[memory]: Invalid value: "2Gi": default request value 2Gi is greater than max value 1Gi`,
		`spec.limits[0].default[memory]: Invalid value: "1Gi": default value 2Gi is greater than max value 1Gi`)

	thing := &corev1.LimitRange{ObjectMeta: objMeta("bad", "lr-demo"), Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{{
		Type: "Thing", Max: corev1.ResourceList{"memory": resource.MustParse("1Gi")},
	}}}}
	s.PrepareForCreate(thing)
	wantErrors(t, s.Validate(thing), `spec.limits[0].type: Invalid value: "Thing": must be a standard limit type or fully qualified`)
}

func TestPersistentVolume(t *testing.T) {
	s := pvStrategy{}
	pv := &corev1.PersistentVolume{ObjectMeta: objMeta("pv-1", ""), Spec: corev1.PersistentVolumeSpec{
		Capacity:               corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("5Gi")},
		AccessModes:            []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
		PersistentVolumeSource: corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/data"}},
	}}
	s.PrepareForCreate(pv)
	if pv.Status.Phase != corev1.VolumePending || pv.Spec.PersistentVolumeReclaimPolicy != corev1.PersistentVolumeReclaimRetain ||
		len(pv.Finalizers) != 1 || pv.Finalizers[0] != "kubernetes.io/pv-protection" {
		t.Fatalf("after create: %+v", pv)
	}
	wantErrors(t, s.Validate(pv))
	none := pv.DeepCopy()
	none.Spec.HostPath = nil
	wantErrors(t, s.Validate(none), "spec: Required value: must specify a volume type")
	two := pv.DeepCopy()
	two.Spec.NFS = &corev1.NFSVolumeSource{Server: "s", Path: "/p"}
	wantErrors(t, s.Validate(two), "spec.nfs: Forbidden: may not specify more than 1 volume type")
}

func TestReplicationController(t *testing.T) {
	s := rcStrategy{}
	labels := map[string]string{"app": "old"}
	rc := &corev1.ReplicationController{ObjectMeta: objMeta("old", "default"), Spec: corev1.ReplicationControllerSpec{
		Template: &corev1.PodTemplateSpec{ObjectMeta: objMeta("", ""), Spec: corev1.PodSpec{Containers: []corev1.Container{container("c", "nginx")}}},
	}}
	rc.Spec.Template.Labels = labels
	s.PrepareForCreate(rc)
	if *rc.Spec.Replicas != 1 || rc.Spec.Selector["app"] != "old" || rc.Labels["app"] != "old" {
		t.Fatalf("defaults: %+v", rc)
	}
	wantErrors(t, s.Validate(rc))
	if sc := s.Scale(rc); sc.Spec.Replicas != 1 || sc.Status.Selector != "app=old" {
		t.Fatalf("scale: %+v", sc)
	}
	other := rc.DeepCopy()
	other.Spec.Selector = map[string]string{"app": "new"}
	wantErrors(t, s.Validate(other), "spec.template.metadata.labels: Invalid value: {\"app\":\"old\"}: `selector` does not match template `labels`")
}

func TestPodTemplate(t *testing.T) {
	s := podTemplateStrategy{}
	pt := &corev1.PodTemplate{ObjectMeta: objMeta("tpl", "default"), Template: corev1.PodTemplateSpec{
		Spec: corev1.PodSpec{Containers: []corev1.Container{container("c", "nginx")}}}}
	s.PrepareForCreate(pt)
	wantErrors(t, s.Validate(pt))
	changed := pt.DeepCopy()
	changed.Template.Spec.Containers[0].Image = "nginx:2"
	if !s.GenerationChanged(changed, pt) {
		t.Fatal("a template change keeps the generation")
	}
	noContainers := pt.DeepCopy()
	noContainers.Template.Spec.Containers = nil
	wantErrorContaining(t, s.Validate(noContainers), "template.spec.containers: Required value")
}
