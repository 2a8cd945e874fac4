package cli

import (
	"context"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// Describers for the configuration kinds: ConfigMap, Secret and
// ServiceAccount, laid out as kubectl lays them out.

func describeConfigMapByName(ctx context.Context, cs kubernetes.Interface, ns, name string, showEvents bool) (string, error) {
	cm, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return "", err
	}
	var events *corev1.EventList
	if showEvents {
		// kubectl fails the description when the events cannot be listed.
		if events, err = searchEvents(ctx, cs, "ConfigMap", cm); err != nil {
			return "", err
		}
	}
	return describeConfigMap(cm, events), nil
}

// describeConfigMap prints every value in full under its key, and only the
// size of binary values.
func describeConfigMap(cm *corev1.ConfigMap, events *corev1.EventList) string {
	return tabbed(func(w *describeWriter) {
		w.write(0, "Name:\t%s\n", cm.Name)
		w.write(0, "Namespace:\t%s\n", cm.Namespace)
		printLabels(w, "Labels", cm.Labels)
		printAnnotations(w, "Annotations", cm.Annotations)
		w.write(0, "\nData\n====\n")
		for _, k := range sortedKeys(cm.Data) {
			w.write(0, "%s:\n----\n", k)
			w.write(0, "%s\n", cm.Data[k])
			w.write(0, "\n")
		}
		w.write(0, "\nBinaryData\n====\n")
		for _, k := range slices.Sorted(maps.Keys(cm.BinaryData)) {
			w.write(0, "%s: %d bytes\n", k, len(cm.BinaryData[k]))
		}
		w.write(0, "\n")
		describeEvents(w, events)
	})
}

func describeSecretByName(ctx context.Context, cs kubernetes.Interface, ns, name string, _ bool) (string, error) {
	s, err := cs.CoreV1().Secrets(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return "", err
	}
	return describeSecret(s), nil
}

// describeSecret never prints a value, only its size; the one exception is
// a service-account token secret's token, as kubectl does. Secrets have no
// Events section.
func describeSecret(s *corev1.Secret) string {
	return tabbed(func(w *describeWriter) {
		w.write(0, "Name:\t%s\n", s.Name)
		w.write(0, "Namespace:\t%s\n", s.Namespace)
		printLabels(w, "Labels", s.Labels)
		printAnnotations(w, "Annotations", s.Annotations)
		w.write(0, "\nType:\t%s\n", s.Type)
		w.write(0, "\nData\n====\n")
		for _, k := range slices.Sorted(maps.Keys(s.Data)) {
			if k == corev1.ServiceAccountTokenKey && s.Type == corev1.SecretTypeServiceAccountToken {
				w.write(0, "%s:\t%s\n", k, s.Data[k])
				continue
			}
			w.write(0, "%s:\t%d bytes\n", k, len(s.Data[k]))
		}
	})
}

func describeServiceAccountByName(ctx context.Context, cs kubernetes.Interface, ns, name string, showEvents bool) (string, error) {
	sa, err := cs.CoreV1().ServiceAccounts(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return "", err
	}
	var events *corev1.EventList
	if showEvents {
		events, _ = searchEvents(ctx, cs, "ServiceAccount", sa)
	}
	return describeServiceAccount(sa, events), nil
}

// describeServiceAccount lists the image pull secrets one a line, the
// later ones under a blank header as wide as the first.
func describeServiceAccount(sa *corev1.ServiceAccount, events *corev1.EventList) string {
	const header = "Image pull secrets:"
	return tabbed(func(w *describeWriter) {
		w.write(0, "Name:\t%s\n", sa.Name)
		w.write(0, "Namespace:\t%s\n", sa.Namespace)
		printLabels(w, "Labels", sa.Labels)
		printAnnotations(w, "Annotations", sa.Annotations)
		if len(sa.ImagePullSecrets) == 0 {
			w.write(0, "%s\t<none>\n", header)
		}
		prefix := header
		for _, s := range sa.ImagePullSecrets {
			w.write(0, "%s\t%s\n", prefix, s.Name)
			prefix = "                   "
		}
		describeEvents(w, events)
	})
}
