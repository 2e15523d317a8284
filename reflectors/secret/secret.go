// Package secret reflects Secrets verbatim into twin namespaces, except the
// legacy ServiceAccount token Secrets: they are tokens of the consumer's
// ServiceAccounts, bound to them by the consumer's token controller, and the
// provider's token controller would reject or rewrite them (ServiceAccount
// tokens travel through the serviceaccount reflector instead).
package secret

import (
	"maps"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/spillway-dev/spillway/reflectors/reflection"
)

// Kind is the Secret reflector.
var Kind = reflection.Kind{
	Name:      "secret",
	New:       func() client.Object { return &corev1.Secret{} },
	NewList:   func() client.ObjectList { return &corev1.SecretList{} },
	Translate: Translate,
	Merge:     Merge,
}

// Translate copies type, data and immutability.
func Translate(o client.Object, remoteNamespace string, peer *reflection.Peer) client.Object {
	local := o.(*corev1.Secret)
	if local.Type == corev1.SecretTypeServiceAccountToken {
		return nil
	}
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: local.Name, Namespace: remoteNamespace,
			Labels: reflection.CopyLabels(local, peer), Annotations: reflection.CopyAnnotations(local)},
		Type: local.Type, Data: maps.Clone(local.Data), Immutable: local.Immutable,
	}
}

// Merge realigns the copy's metadata and contents. A Secret's type is
// immutable: a change of type surfaces as an update error on the copy.
func Merge(d, e client.Object) bool {
	desired, existing := d.(*corev1.Secret), e.(*corev1.Secret)
	changed := reflection.MergeMeta(desired, existing)
	if !equality.Semantic.DeepEqual(desired.Data, existing.Data) || desired.Type != existing.Type ||
		!equality.Semantic.DeepEqual(desired.Immutable, existing.Immutable) {
		existing.Data, existing.Type, existing.Immutable = desired.Data, desired.Type, desired.Immutable
		changed = true
	}
	return changed
}
