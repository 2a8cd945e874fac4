package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// burstClients is how many clients the write burst uses: as many as make
// the store batch its commits fully, well below the server's default
// 200 mutating requests in flight.
const burstClients = 128

// writeBurst creates n ConfigMaps of about a pod's size in ns from
// burstClients clients at once and returns how long they took: the time n
// writes need at the store's batched commit rate, the lower bound for a
// workload that makes n writes on the same server.
func writeBurst(ctx context.Context, c *cluster, ns string, n int) (time.Duration, error) {
	filler := strings.Repeat("x", 1024)
	return parallel(ctx, 0, n, burstClients, func(ctx context.Context, i int) error {
		cm := &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("burst-%07d", i), Namespace: ns, Labels: map[string]string{"app": "bench-burst"}},
			Data:       map[string]string{"filler": filler},
		}
		_, err := c.cs.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{})
		return err
	})
}
