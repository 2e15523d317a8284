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

package framework

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	"github.com/spillway-dev/spillway/e2e/lab"
)

// Suites that apply clusters/ themselves (not through Flux) still carry every
// credential with External Secrets: one store per lab, on the first cluster
// that asks, and the operator on every cluster that takes part.
var (
	storesMu sync.Mutex
	stores   = map[string]*SecretStore{} // by lab directory
)

// EnsureExternalSecrets runs External Secrets on each of clusters with the
// fleet's ClusterSecretStore, as the Kustomization fleet-secrets applies it;
// clusters that already run it are left alone. The store lives on the first
// cluster of the lab to ask.
func EnsureExternalSecrets(ctx context.Context, clusters ...*lab.Cluster) error {
	if len(clusters) == 0 {
		return nil
	}
	root, err := lab.RepoRoot()
	if err != nil {
		return err
	}
	storesMu.Lock()
	defer storesMu.Unlock()
	labDir := filepath.Dir(filepath.Dir(clusters[0].Kubeconfig()))
	store := stores[labDir]
	if store == nil {
		if store, err = StartSecretStore(ctx, clusters[0]); err != nil {
			return err
		}
		stores[labDir] = store
	}
	var missing []*lab.Cluster
	for _, c := range clusters {
		if !c.ExtraRunning(ExternalSecretsProcess) {
			missing = append(missing, c)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	var tools GitOpsTools
	if tools.ExternalSecrets, err = lab.Tool("external-secrets", os.Stderr); err != nil {
		return err
	}
	if tools.ExternalSecretsCRDs, err = lab.Tool("external-secrets-crds", os.Stderr); err != nil {
		return err
	}
	// The clusters install together: each mostly waits (for its CRDs, its
	// operator, its store to turn Ready), and one after the other every
	// suite's setup paid the sum of those waits.
	eg, ectx := errgroup.WithContext(ctx)
	for _, c := range missing {
		eg.Go(func() error {
			if err := InstallExternalSecrets(ectx, c, tools); err != nil {
				return err
			}
			if err := store.Bootstrap(ectx, c); err != nil {
				return err
			}
			return store.Apply(ectx, root, c)
		})
	}
	return eg.Wait()
}

var clusterSecretStoreGVK = schema.GroupVersionKind{Group: "external-secrets.io", Version: "v1", Kind: "ClusterSecretStore"}

// Apply applies clusters/fleet-secrets on c with ${FLEET_SECRETS_SERVER}
// substituted, as the Kustomization fleet-secrets does, and waits for the
// ClusterSecretStore to be Ready (External Secrets reached the store).
func (s *SecretStore) Apply(ctx context.Context, root string, c *lab.Cluster) error {
	objs, err := Build(filepath.Join(root, "clusters", "fleet-secrets"))
	if err != nil {
		return err
	}
	for _, o := range objs {
		data, err := o.MarshalJSON()
		if err != nil {
			return err
		}
		if err := o.UnmarshalJSON([]byte(strings.ReplaceAll(string(data), "${FLEET_SECRETS_SERVER}", s.server))); err != nil {
			return err
		}
	}
	if err := Apply(ctx, c, objs); err != nil {
		return err
	}
	cl, err := Client(c)
	if err != nil {
		return err
	}
	return Poll(ctx, func(ctx context.Context) error {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(clusterSecretStoreGVK)
		if err := cl.Get(ctx, client.ObjectKey{Name: "fleet-secrets"}, u); err != nil {
			return err
		}
		if r := readyCondition(u); r == nil || r.Status != "True" {
			return fmt.Errorf("cluster %s: ClusterSecretStore fleet-secrets is not Ready: %v", c.Name, r)
		}
		return nil
	})
}

// ForceSync asks External Secrets to sync an ExternalSecret or PushSecret now
// rather than at its refresh interval: any change of its annotations does, as
// `kubectl annotate es NAME force-sync=$(date +%s) --overwrite` does.
func ForceSync(ctx context.Context, c client.Client, obj *unstructured.Unstructured) error {
	u := obj.DeepCopy()
	patch := fmt.Sprintf(`{"metadata":{"annotations":{"force-sync":%q}}}`, time.Now().UTC().Format(time.RFC3339Nano))
	return c.Patch(ctx, u, client.RawPatch(types.MergePatchType, []byte(patch)))
}

// WaitForStoreKey waits until the lab's store holds key with every property
// of an identity (sharingv1alpha1.IdentityKeys), pushed one by one by a
// provider's PushSecret. Suites apply the consumer's ExternalSecret after it:
// one that finds no key waits a whole refresh interval before looking again.
func WaitForStoreKey(ctx context.Context, c *lab.Cluster, key string) error {
	storesMu.Lock()
	store := stores[filepath.Dir(filepath.Dir(c.Kubeconfig()))]
	storesMu.Unlock()
	if store == nil {
		return fmt.Errorf("no secret store in the lab of cluster %s: call EnsureExternalSecrets first", c.Name)
	}
	cl, err := Client(store.Host)
	if err != nil {
		return err
	}
	return Poll(ctx, func(ctx context.Context) error {
		stored := &corev1.Secret{}
		if err := cl.Get(ctx, client.ObjectKey{Namespace: StoreNamespace, Name: key}, stored); err != nil {
			return err
		}
		for _, property := range sharingv1alpha1.IdentityKeys() {
			if _, ok := stored.Data[property]; !ok {
				return fmt.Errorf("the store's key %s has no property %s yet", key, property)
			}
		}
		return nil
	})
}

// SyncIdentities force-syncs every PushSecret of the provider's and every
// ExternalSecret of the consumer's liqo namespace, as `kubectl annotate
// force-sync=…` would: a rotated identity then crosses the store at once
// instead of after two refresh intervals. It returns once both are asked.
func SyncIdentities(ctx context.Context, provider, consumer client.Client) error {
	for _, step := range []struct {
		c    client.Client
		kind schema.GroupVersionKind
	}{
		{provider, schema.GroupVersionKind{Group: "external-secrets.io", Version: "v1alpha1", Kind: "PushSecretList"}},
		{consumer, schema.GroupVersionKind{Group: "external-secrets.io", Version: "v1", Kind: "ExternalSecretList"}},
	} {
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(step.kind)
		if err := step.c.List(ctx, list, client.InNamespace("liqo")); err != nil {
			return fmt.Errorf("listing %s: %w", step.kind.Kind, err)
		}
		for i := range list.Items {
			if err := ForceSync(ctx, step.c, &list.Items[i]); err != nil {
				return err
			}
		}
	}
	return nil
}
