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
	"context"
	"crypto/tls"
	"crypto/x509"
	"os"
	"path/filepath"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
)

var hosts = []string{"127.0.0.1", "spillway-webhook.liqo.svc"}

func TestPlanRotation(t *testing.T) {
	g := NewWithT(t)
	now := time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)
	g.Expect(PlanRotation(nil, hosts, now)).To(Equal(Plan{NewCA: true, NewLeaf: true, Reason: "no usable CA yet"}))

	b, err := Rotate(nil, PlanRotation(nil, hosts, now), hosts, now)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(PlanRotation(b, hosts, now)).To(Equal(Plan{}), "fresh material needs nothing")
	g.Expect(PlanRotation(b, hosts, now.Add(LeafValidity*2/3+time.Hour)).NewLeaf).To(BeTrue(), "renewed after two thirds of its life")
	g.Expect(PlanRotation(b, hosts, now.Add(LeafValidity*2/3+time.Hour)).NewCA).To(BeFalse())
	g.Expect(PlanRotation(b, append(hosts, "10.0.0.9"), now).NewLeaf).To(BeTrue(), "a new host needs a new certificate")
	g.Expect(PlanRotation(b, hosts, now.Add(CAValidity-caRenewAhead+time.Hour)).NewCA).To(BeTrue())
}

func TestRotateKeepsTheOldCATrustedUntilItExpires(t *testing.T) {
	g := NewWithT(t)
	now := time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)
	first, err := Rotate(nil, Plan{NewCA: true, NewLeaf: true}, hosts, now)
	g.Expect(err).NotTo(HaveOccurred())
	later := now.Add(CAValidity - caRenewAhead + time.Hour)
	second, err := Rotate(first, PlanRotation(first, hosts, later), hosts, later)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(second[CACertKey]).NotTo(Equal(first[CACertKey]))

	pool := x509.NewCertPool()
	g.Expect(pool.AppendCertsFromPEM(second[BundleKey])).To(BeTrue())
	for _, b := range []Bundle{first, second} {
		leaf, err := parseCert(b[TLSCertKey])
		g.Expect(err).NotTo(HaveOccurred())
		// A replica still serving the old certificate is trusted through the new bundle.
		_, err = leaf.Verify(x509.VerifyOptions{Roots: pool, CurrentTime: leaf.NotBefore.Add(2 * time.Hour), DNSName: "spillway-webhook.liqo.svc"})
		g.Expect(err).NotTo(HaveOccurred(), "both the old and the new serving certificate verify against the bundle")
	}
}

func TestRotatorStoresWritesAndPublishes(t *testing.T) {
	g := NewWithT(t)
	c := fake.NewClientBuilder().Build()
	dir := t.TempDir()
	var published [][]byte
	r := &Rotator{Client: c, Secret: types.NamespacedName{Namespace: "liqo", Name: "spillway-webhook-tls"}, CertDir: dir, Hosts: hosts,
		Publish: func(_ context.Context, ca []byte) error { published = append(published, ca); return nil }}
	g.Expect(r.Ensure(context.Background())).To(Succeed())
	secret := &corev1.Secret{}
	g.Expect(c.Get(context.Background(), r.Secret, secret)).To(Succeed())
	_, err := tls.LoadX509KeyPair(filepath.Join(dir, TLSCertKey), filepath.Join(dir, TLSKeyKey))
	g.Expect(err).NotTo(HaveOccurred())
	onDisk, _ := os.ReadFile(filepath.Join(dir, TLSCertKey))
	g.Expect(onDisk).To(Equal(secret.Data[TLSCertKey]))

	// A restart (a new replica) reuses the stored material.
	g.Expect(r.Ensure(context.Background())).To(Succeed())
	again := &corev1.Secret{}
	g.Expect(c.Get(context.Background(), r.Secret, again)).To(Succeed())
	g.Expect(again.Data).To(Equal(secret.Data))
	g.Expect(published).To(HaveLen(2))
	g.Expect(published[1]).To(Equal(secret.Data[BundleKey]))
}
