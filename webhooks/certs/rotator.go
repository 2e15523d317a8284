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

package certs

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// FieldOwner is the field manager of the Secret and of the CA bundles the
// rotator publishes.
const FieldOwner = "spillway-webhook-certs"

// Rotator keeps the serving certificate valid: Ensure once before the webhook
// server starts, then Start as a manager runnable that checks periodically.
type Rotator struct {
	// Client reads and writes the Secret; it must work before the manager's
	// cache starts, so it is a direct client.
	Client client.Client
	Secret types.NamespacedName
	// CertDir receives tls.crt and tls.key for the webhook server, which
	// reloads them when they change.
	CertDir string
	// Hosts are the DNS names and IPs the API server dials.
	Hosts []string
	// Publish hands the CA bundle to the webhook configurations.
	Publish func(ctx context.Context, caBundle []byte) error
	// Interval between checks; Now is the clock (tests).
	Interval time.Duration
	Now      func() time.Time
}

// Ensure rotates what is due, stores it, writes the files and publishes the
// bundle. It is idempotent: with nothing due it rewrites nothing but the files.
func (r *Rotator) Ensure(ctx context.Context) error {
	secret := &corev1.Secret{}
	err := r.Client.Get(ctx, r.Secret, secret)
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("reading the webhook certificate Secret %s: %w", r.Secret, err)
	}
	bundle := Bundle(secret.Data)
	if plan := PlanRotation(bundle, r.Hosts, r.now()); plan.NewCA || plan.NewLeaf {
		ctrl.Log.WithName("webhook-certs").Info("rotating the webhook certificate", "reason", plan.Reason, "ca", plan.NewCA)
		if bundle, err = Rotate(bundle, plan, r.Hosts, r.now()); err != nil {
			return err
		}
		if err := r.store(ctx, secret, bundle); err != nil {
			return err
		}
	}
	if err := writeFiles(r.CertDir, bundle); err != nil {
		return err
	}
	return r.Publish(ctx, bundle[BundleKey])
}

// store creates the Secret, or updates it under optimistic locking so that two
// replicas rotating at once do not both win: the loser fails and retries.
func (r *Rotator) store(ctx context.Context, secret *corev1.Secret, b Bundle) error {
	if secret.ResourceVersion == "" {
		secret = &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: r.Secret.Namespace, Name: r.Secret.Name}, Type: corev1.SecretTypeOpaque, Data: b}
		if err := r.Client.Create(ctx, secret, client.FieldOwner(FieldOwner)); err != nil {
			return fmt.Errorf("creating the webhook certificate Secret %s (is the namespace there?): %w", r.Secret, err)
		}
		return nil
	}
	secret.Data = b
	if err := r.Client.Update(ctx, secret, client.FieldOwner(FieldOwner)); err != nil {
		return fmt.Errorf("updating the webhook certificate Secret %s: %w", r.Secret, err)
	}
	return nil
}

// Start checks every Interval until ctx ends; failures are logged and retried.
func (r *Rotator) Start(ctx context.Context) error {
	interval := r.Interval
	if interval <= 0 {
		interval = time.Hour
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
			if err := r.Ensure(ctx); err != nil {
				ctrl.Log.WithName("webhook-certs").Error(err, "webhook certificate check failed; retrying at the next interval")
			}
		}
	}
}

func (r *Rotator) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

// writeFiles replaces the key pair atomically, so the server never reads a
// certificate with the wrong key. Unchanged files are left alone: Ensure runs
// every check interval, and each rewrite makes the server reload.
func writeFiles(dir string, b Bundle) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	if unchanged(dir, b) {
		return nil
	}
	for _, name := range []string{TLSKeyKey, TLSCertKey} {
		tmp := filepath.Join(dir, "."+name+".tmp")
		if err := os.WriteFile(tmp, b[name], 0o600); err != nil {
			return fmt.Errorf("writing the webhook certificate into %s: %w", dir, err)
		}
		if err := os.Rename(tmp, filepath.Join(dir, name)); err != nil {
			return err
		}
	}
	return nil
}

// unchanged reports whether dir already holds b's key pair.
func unchanged(dir string, b Bundle) bool {
	for _, name := range []string{TLSKeyKey, TLSCertKey} {
		if old, err := os.ReadFile(filepath.Join(dir, name)); err != nil || !bytes.Equal(old, b[name]) {
			return false
		}
	}
	return true
}
