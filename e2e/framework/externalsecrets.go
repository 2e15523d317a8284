package framework

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// CopySecret stands in for External Secrets in the lab: the provider's
// PushSecret and the consumer's ExternalSecret together copy one Secret's data
// from one cluster to another. No External Secrets operator runs in the lab, and
// the suites say so wherever they call this.
func CopySecret(ctx context.Context, from client.Client, src client.ObjectKey, to client.Client, dst client.ObjectKey) error {
	s := &corev1.Secret{}
	if err := from.Get(ctx, src, s); err != nil {
		return fmt.Errorf("reading %s on the provider: %w", src, err)
	}
	if err := ensureNamespace(ctx, to, dst.Namespace); err != nil {
		return err
	}
	out := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: dst.Namespace, Name: dst.Name}}
	_, err := createOrUpdate(ctx, to, out, func() { out.Data = s.Data; out.Type = corev1.SecretTypeOpaque })
	return err
}

func ensureNamespace(ctx context.Context, c client.Client, name string) error {
	err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}})
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}

func createOrUpdate(ctx context.Context, c client.Client, s *corev1.Secret, mutate func()) (bool, error) {
	existing := &corev1.Secret{}
	err := c.Get(ctx, client.ObjectKeyFromObject(s), existing)
	if apierrors.IsNotFound(err) {
		mutate()
		return true, c.Create(ctx, s)
	}
	if err != nil {
		return false, err
	}
	s.ObjectMeta = existing.ObjectMeta
	mutate()
	return false, c.Update(ctx, s)
}
