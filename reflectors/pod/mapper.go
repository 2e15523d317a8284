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

// TwinNotReadyError means a namespace has a twin on the provider that is not
// Ready: nothing new is placed there, but what already runs there is still
// the consumer's to update and delete, in the twin named Remote.
type TwinNotReadyError struct {
	Namespace, Remote, ClusterName string
}

func (e *TwinNotReadyError) Error() string {
	return fmt.Sprintf("%v: namespace %s has no ready twin on cluster %s", ErrNotOffloaded, e.Namespace, e.ClusterName)
}

// Unwrap makes a twin that is not Ready count as not offloaded.
func (e *TwinNotReadyError) Unwrap() error { return ErrNotOffloaded }

// OffloadingMapper maps a local namespace to its twin on one provider by
// reading the namespace's NamespaceOffloading status: the twin must be Ready
// on that provider, or pods wait (OffloadingBackOff). A twin that exists but
// is not Ready comes back as a *TwinNotReadyError naming it.
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
		remote, ready, known := twinOnPeer(no, peerKey)
		switch {
		case ready:
			return remote, nil
		case known:
			return "", &TwinNotReadyError{Namespace: localNs, Remote: remote, ClusterName: clusterName}
		}
		return "", fmt.Errorf("%w: namespace %s has no ready twin on cluster %s", ErrNotOffloaded, localNs, clusterName)
	}
}

// twinOnPeer reads a NamespaceOffloading's twin on one peer: its name, whether
// it is Ready, and whether it is known at all (the peer has a condition and
// the twin a name), Ready or not.
func twinOnPeer(no *offloadingv1alpha1.NamespaceOffloading, peerKey string) (remote string, ready, known bool) {
	conds, ok := no.Status.RemoteNamespacesConditions[peerKey]
	if !ok || no.Status.RemoteNamespaceName == "" {
		return "", false, false
	}
	for _, c := range conds {
		if c.Type == offloadingv1alpha1.NamespaceReadyCondition && c.Status == metav1.ConditionTrue {
			return no.Status.RemoteNamespaceName, true, true
		}
	}
	return no.Status.RemoteNamespaceName, false, true
}

// OffloadedTwins lists every twin the consumer has on one provider, Ready or
// not, as local namespace -> twin namespace: the twins whose pods a virtual
// kubelet must watch from its start, so that orphans left before a restart
// are found.
func OffloadedTwins(ctx context.Context, c client.Reader, clusterName, clusterID string) (map[string]string, error) {
	list := &offloadingv1alpha1.NamespaceOffloadingList{}
	if err := c.List(ctx, list); err != nil {
		return nil, fmt.Errorf("listing NamespaceOffloadings: %w", err)
	}
	peerKey := policies.UniqueClusterName(clusterName, clusterID)
	out := map[string]string{}
	for i := range list.Items {
		if list.Items[i].Name != offloadingv1alpha1.RequiredName {
			continue
		}
		if remote, _, known := twinOnPeer(&list.Items[i], peerKey); known {
			out[list.Items[i].Namespace] = remote
		}
	}
	return out, nil
}
