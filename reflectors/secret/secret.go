/*
Copyright 2026 The Spillway Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

// Package secret reflects Secrets verbatim into twin namespaces, except the
// legacy ServiceAccount token Secrets: they are tokens of the consumer's
// ServiceAccounts, bound to them by the consumer's token controller, and the
// provider's token controller would reject or rewrite them (ServiceAccount
// tokens travel through the serviceaccount reflector instead).
//
// The twin's token Secrets are the serviceaccount reflector's: this one never
// overwrites nor deletes them, never writes a copy under their name prefix,
// and never gives a copy their label, whatever a user puts on a Secret.
package secret

import (
	"maps"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/spillway-dev/spillway/reflectors/reflection"
	"github.com/spillway-dev/spillway/reflectors/serviceaccount"
)

// Kind is the Secret reflector.
var Kind = reflection.Kind{
	Name:      "secret",
	New:       func() client.Object { return &corev1.Secret{} },
	NewList:   func() client.ObjectList { return &corev1.SecretList{} },
	Translate: Translate,
	Merge:     Merge,
	// Token Secrets carry the copy labels too, and have no local original.
	OwnedElsewhere: serviceaccount.IsTokenSecret,
}

// Translate copies type, data and immutability. A local Secret named like a
// token Secret is not reflected: the name is the serviceaccount reflector's.
func Translate(o client.Object, remoteNamespace string, peer *reflection.Peer) client.Object {
	local := o.(*corev1.Secret)
	if local.Type == corev1.SecretTypeServiceAccountToken {
		return nil
	}
	if _, token := serviceaccount.ServiceAccountOf(local.Name); token {
		return nil
	}
	labels := reflection.CopyLabels(local, peer)
	delete(labels, serviceaccount.TokenLabel)
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: local.Name, Namespace: remoteNamespace,
			Labels: labels, Annotations: reflection.CopyAnnotations(local)},
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
