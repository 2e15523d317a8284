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

package fabric

import (
	"context"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"

	"golang.zx2c4.com/wireguard/wgctrl/wgtypes"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
)

// The per-peering key Secret: created by the manager in its own namespace,
// never in git, so the private key never leaves the cluster. It also pins
// the gateway's UDP port and the remap chosen for the peer, so that a
// restarted manager keeps both.
const (
	// GatewayKeyLabel marks key Secrets (value "true").
	GatewayKeyLabel = "spillway.liqo.io/gateway-key"
	// GatewayKeySecretPrefix starts a key Secret's name; the interface name follows.
	GatewayKeySecretPrefix = "spillway-gateway-"

	privateKeyKey = "privateKey"
	listenPortKey = "listenPort"
	remapKey      = "remappedPodCIDR"
)

// peeringKey is what the key Secret holds.
type peeringKey struct {
	secret  *corev1.Secret
	private wgtypes.Key
	port    int
	remap   netip.Prefix
}

func (f *Fabric) keySecretName(remoteID string) string {
	return GatewayKeySecretPrefix + InterfaceName(f.cfg.ClusterID, remoteID)
}

// ensureKey reads the peering's key Secret, creating it with a fresh key and
// the lowest free port of the range the first time. Only API errors and a
// full port range are returned.
func (f *Fabric) ensureKey(ctx context.Context, remoteID string) (peeringKey, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := &corev1.Secret{}
	err := f.client.Get(ctx, client.ObjectKey{Namespace: f.cfg.Namespace, Name: f.keySecretName(remoteID)}, s)
	if err == nil {
		return parseKeySecret(s)
	}
	if !apierrors.IsNotFound(err) {
		return peeringKey{}, fmt.Errorf("reading gateway key Secret %s/%s: %w", f.cfg.Namespace, f.keySecretName(remoteID), err)
	}
	port, err := f.freePort(ctx)
	if err != nil {
		return peeringKey{}, err
	}
	priv, err := wgtypes.GeneratePrivateKey()
	if err != nil {
		return peeringKey{}, err
	}
	s = &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: f.cfg.Namespace, Name: f.keySecretName(remoteID),
			Labels: map[string]string{GatewayKeyLabel: "true", sharingv1alpha1.RemoteClusterIDLabel: remoteID}},
		Data: map[string][]byte{privateKeyKey: []byte(priv.String()), listenPortKey: []byte(strconv.Itoa(port))},
	}
	if err := f.client.Create(ctx, s); err != nil {
		return peeringKey{}, fmt.Errorf("creating gateway key Secret %s/%s: %w", s.Namespace, s.Name, err)
	}
	return peeringKey{secret: s, private: priv, port: port}, nil
}

func parseKeySecret(s *corev1.Secret) (peeringKey, error) {
	k := peeringKey{secret: s}
	var err error
	if k.private, err = wgtypes.ParseKey(string(s.Data[privateKeyKey])); err != nil {
		return k, fmt.Errorf("gateway key Secret %s/%s: key %q is not a WireGuard key: delete the Secret and the manager makes a new one", s.Namespace, s.Name, privateKeyKey)
	}
	if k.port, err = strconv.Atoi(string(s.Data[listenPortKey])); err != nil {
		return k, fmt.Errorf("gateway key Secret %s/%s: key %q is not a port: delete the Secret and the manager makes a new one", s.Namespace, s.Name, listenPortKey)
	}
	k.remap, _ = netip.ParsePrefix(string(s.Data[remapKey]))
	return k, nil
}

// freePort is the lowest port of the range no key Secret holds.
func (f *Fabric) freePort(ctx context.Context) (int, error) {
	list := &corev1.SecretList{}
	if err := f.client.List(ctx, list, client.InNamespace(f.cfg.Namespace), client.MatchingLabels{GatewayKeyLabel: "true"}); err != nil {
		return 0, fmt.Errorf("listing gateway key Secrets: %w", err)
	}
	used := map[int]bool{}
	for _, s := range list.Items {
		if p, err := strconv.Atoi(string(s.Data[listenPortKey])); err == nil {
			used[p] = true
		}
	}
	for p := f.cfg.FirstPort; p <= f.cfg.LastPort; p++ {
		if !used[p] {
			return p, nil
		}
	}
	return 0, fmt.Errorf("every gateway port of --gateway-ports %d-%d is taken by a peering: widen the range", f.cfg.FirstPort, f.cfg.LastPort)
}

// recordRemap stores the remap chosen for the peer, if it changed.
func (f *Fabric) recordRemap(ctx context.Context, k peeringKey, remap netip.Prefix) error {
	if k.remap == remap {
		return nil
	}
	s := k.secret.DeepCopy()
	s.Data[remapKey] = []byte(remap.String())
	if err := f.client.Update(ctx, s); err != nil {
		return fmt.Errorf("recording the remap in gateway key Secret %s/%s: %w", s.Namespace, s.Name, err)
	}
	return nil
}

// writeKeyFile puts the private key where the gateway reads it, mode 0600.
func writeKeyFile(path string, key wgtypes.Key) error {
	if old, err := os.ReadFile(path); err == nil && string(old) == key.String()+"\n" {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(key.String()+"\n"), 0o600)
}
