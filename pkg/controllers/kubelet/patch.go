package kubelet

import (
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
)

// statusPatch is the strategic merge patch of pods/status that turns old
// into new, as the kubelet's status manager sends it: a patch, not an
// update, so it never conflicts with another writer of the pod's status at
// the same moment (conditions merge by type), and no write is lost to a
// retry. The pod's uid is in the patch (only in the new side, so it always
// appears) as a precondition: a different pod of the same name is not
// patched by a server that refuses to change a uid.
func statusPatch(uid types.UID, old, new corev1.PodStatus) ([]byte, error) {
	oldJSON, err := json.Marshal(corev1.Pod{Status: old})
	if err != nil {
		return nil, err
	}
	newJSON, err := json.Marshal(corev1.Pod{ObjectMeta: metav1.ObjectMeta{UID: uid}, Status: new})
	if err != nil {
		return nil, err
	}
	patch, err := strategicpatch.CreateTwoWayMergePatch(oldJSON, newJSON, corev1.Pod{})
	if err != nil {
		return nil, fmt.Errorf("kubelet: status patch: %w", err)
	}
	return patch, nil
}
