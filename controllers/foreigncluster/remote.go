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

package foreigncluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
)

// remoteOffer is what the provider publishes for this consumer.
type remoteOffer struct {
	providerClusterID   string
	providerClusterName string
	consumerClusterID   string
	resources           corev1.ResourceList
	labels              map[string]string
	ready               bool
	serverVersion       string
}

// readRemoteOffer reads the offer ConfigMap in the tenant namespace: the only
// thing a consumer's least-privilege identity needs to read to peer.
func readRemoteOffer(ctx context.Context, cs kubernetes.Interface, namespace string) (*remoteOffer, error) {
	cm, err := cs.CoreV1().ConfigMaps(namespace).Get(ctx, sharingv1alpha1.OfferConfigMapName, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	offer, err := parseOffer(cm)
	if err != nil {
		return nil, err
	}
	if v, err := cs.Discovery().ServerVersion(); err == nil {
		offer.serverVersion = v.GitVersion
	}
	return offer, nil
}

func parseOffer(cm *corev1.ConfigMap) (*remoteOffer, error) {
	o := &remoteOffer{
		providerClusterID:   cm.Data[sharingv1alpha1.OfferProviderClusterIDKey],
		providerClusterName: cm.Data[sharingv1alpha1.OfferProviderClusterNameKey],
		consumerClusterID:   cm.Data[sharingv1alpha1.OfferConsumerClusterIDKey],
		ready:               cm.Data[sharingv1alpha1.OfferReadyKey] == "true",
		resources:           corev1.ResourceList{},
		labels:              map[string]string{},
	}
	if v := cm.Data[sharingv1alpha1.OfferResourcesKey]; v != "" {
		if err := json.Unmarshal([]byte(v), &o.resources); err != nil {
			return nil, fmt.Errorf("the provider's offer %s/%s has unreadable %q: %w", cm.Namespace, cm.Name, sharingv1alpha1.OfferResourcesKey, err)
		}
	}
	if v := cm.Data[sharingv1alpha1.OfferLabelsKey]; v != "" {
		if err := json.Unmarshal([]byte(v), &o.labels); err != nil {
			return nil, fmt.Errorf("the provider's offer %s/%s has unreadable %q: %w", cm.Namespace, cm.Name, sharingv1alpha1.OfferLabelsKey, err)
		}
	}
	return o, nil
}

// remoteFailure classifies an error from the provider's API server.
type remoteFailure int

const (
	failureUnreachable remoteFailure = iota
	failureUnauthorized
	failureForbidden
	failureNoOffer
	failureOther
)

func classifyRemoteError(err error) remoteFailure {
	var netErr net.Error
	switch {
	case apierrors.IsUnauthorized(err):
		return failureUnauthorized
	case apierrors.IsForbidden(err):
		return failureForbidden
	case apierrors.IsNotFound(err):
		return failureNoOffer
	case errors.As(err, &netErr), strings.Contains(err.Error(), "connection refused"), strings.Contains(err.Error(), "no such host"),
		errors.Is(err, context.DeadlineExceeded):
		return failureUnreachable
	}
	return failureOther
}
