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

package pod

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
	"github.com/spillway-dev/spillway/policies"
	"github.com/spillway-dev/spillway/reflectors/reflection"
)

// OffloadingMapper maps a local namespace to its twin on one provider by
// reading the namespace's NamespaceOffloading status: the twin must be Ready
// on that provider, or pods wait (OffloadingBackOff).
func OffloadingMapper(c client.Reader, clusterName, clusterID string) reflection.NamespaceMapper {
	peerKey := policies.UniqueClusterName(clusterName, clusterID)
	return func(ctx context.Context, localNs string) (string, error) {
		no := &offloadingv1alpha1.NamespaceOffloading{}
		err := c.Get(ctx, client.ObjectKey{Namespace: localNs, Name: offloadingv1alpha1.RequiredName}, no)
		switch {
		case apierrors.IsNotFound(err):
			return "", fmt.Errorf("%w: namespace %s has no NamespaceOffloading", ErrNotOffloaded, localNs)
		case err != nil:
			// A failed read says nothing about the namespace: not ErrNotOffloaded.
			return "", fmt.Errorf("reading the NamespaceOffloading of namespace %s: %w", localNs, err)
		}
		for _, c := range no.Status.RemoteNamespacesConditions[peerKey] {
			if c.Type == offloadingv1alpha1.NamespaceReadyCondition && c.Status == metav1.ConditionTrue && no.Status.RemoteNamespaceName != "" {
				return no.Status.RemoteNamespaceName, nil
			}
		}
		return "", fmt.Errorf("%w: namespace %s has no ready twin on cluster %s", ErrNotOffloaded, localNs, clusterName)
	}
}
