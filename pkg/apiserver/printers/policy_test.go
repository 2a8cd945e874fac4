package printers

import (
	"reflect"
	"testing"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// The reference's Table for web-pdb (section 15).
func TestPodDisruptionBudgetTable(t *testing.T) {
	one, pct := intstr.FromInt32(1), intstr.FromString("25%")
	list := &policyv1.PodDisruptionBudgetList{Items: []policyv1.PodDisruptionBudget{
		{ObjectMeta: metav1.ObjectMeta{Name: "web-pdb", CreationTimestamp: created}, Spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: &one}},
		{ObjectMeta: metav1.ObjectMeta{Name: "pct", CreationTimestamp: created}, Spec: policyv1.PodDisruptionBudgetSpec{MaxUnavailable: &pct},
			Status: policyv1.PodDisruptionBudgetStatus{DisruptionsAllowed: 2}},
	}}
	table, err := PodDisruptionBudgets(list, now)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"Name/string/0/name", "Min Available/string/0", "Max Unavailable/string/0", "Allowed Disruptions/integer/0", "Age/string/0"}
	if got := header(table.ColumnDefinitions); !reflect.DeepEqual(got, want) {
		t.Errorf("columns = %v, want %v", got, want)
	}
	checkDescriptions(t, table.ColumnDefinitions, map[string]string{
		"Allowed Disruptions": "Calculated number of pods that may be disrupted at this time",
	})
	if got := cellsJSON(t, table.Rows[0]); got != `["web-pdb","1","N/A",0,"2s"]` {
		t.Errorf("cells = %s", got)
	}
	if got := cellsJSON(t, table.Rows[1]); got != `["pct","N/A","25%",2,"2s"]` {
		t.Errorf("cells = %s", got)
	}
}

// The reference's Table for web (section 16), through v2 and v1.
func TestHorizontalPodAutoscalerTable(t *testing.T) {
	seventy := int32(70)
	one := int32(1)
	h := &autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Name: "web", CreationTimestamp: created},
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{Kind: "Deployment", Name: "web", APIVersion: "apps/v1"},
			MinReplicas:    &one, MaxReplicas: 5,
			Metrics: []autoscalingv2.MetricSpec{{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{
				Name: corev1.ResourceCPU, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: &seventy}}}},
		}}
	table, err := HorizontalPodAutoscalers(h, now)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"Name/string/0/name", "Reference/string/0", "Targets/string/0", "MinPods/string/0", "MaxPods/string/0", "Replicas/string/0", "Age/string/0"}
	if got := header(table.ColumnDefinitions); !reflect.DeepEqual(got, want) {
		t.Errorf("columns = %v, want %v", got, want)
	}
	checkDescriptions(t, table.ColumnDefinitions, map[string]string{
		"Reference": "scaleTargetRef points to the target resource to scale, and i",
		"Targets":   "metrics contains the specifications for which to use to calc",
		"MinPods":   "minReplicas is the lower limit for the number of replicas to",
		"MaxPods":   "maxReplicas is the upper limit for the number of replicas to",
		"Replicas":  "currentReplicas is current number of replicas of pods manage",
	})
	if got := cellsJSON(t, table.Rows[0]); got != `["web","Deployment/web","cpu: \u003cunknown\u003e/70%","1",5,0,"2s"]` &&
		got != `["web","Deployment/web","cpu: <unknown>/70%","1",5,0,"2s"]` {
		t.Errorf("cells = %s", got)
	}
	v1 := &autoscalingv1.HorizontalPodAutoscaler{ObjectMeta: h.ObjectMeta, Spec: autoscalingv1.HorizontalPodAutoscalerSpec{
		ScaleTargetRef: autoscalingv1.CrossVersionObjectReference(h.Spec.ScaleTargetRef), MaxReplicas: 5, TargetCPUUtilizationPercentage: &seventy}}
	t1, err := HorizontalPodAutoscalersV1(v1, now)
	if err != nil {
		t.Fatal(err)
	}
	if got := cellsJSON(t, t1.Rows[0]); got != `["web","Deployment/web","cpu: \u003cunknown\u003e/70%","\u003cunset\u003e",5,0,"2s"]` &&
		got != `["web","Deployment/web","cpu: <unknown>/70%","<unset>",5,0,"2s"]` {
		t.Errorf("v1 cells = %s", got)
	}
}
