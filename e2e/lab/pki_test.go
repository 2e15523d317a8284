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

package lab

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"net"
	"os"
	"path/filepath"
	"testing"

	. "github.com/onsi/gomega"
)

func TestGeneratePKIChainsToItsOwnCAOnly(t *testing.T) {
	g := NewWithT(t)
	rome, milan := t.TempDir(), t.TempDir()
	g.Expect(GeneratePKI(rome, "rome", net.ParseIP("10.128.0.1"))).To(Succeed())
	g.Expect(GeneratePKI(milan, "milan", net.ParseIP("10.129.0.1"))).To(Succeed())

	romeCA := loadPool(g, rome)
	milanCA := loadPool(g, milan)
	serving := loadCert(g, rome, "apiserver")
	opts := x509.VerifyOptions{Roots: romeCA, DNSName: "kubernetes.default.svc", KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	_, err := serving.Verify(opts)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(serving.VerifyHostname("127.0.0.1")).To(Succeed())
	g.Expect(serving.VerifyHostname("10.128.0.1")).To(Succeed())

	opts.Roots = milanCA
	_, err = serving.Verify(opts)
	g.Expect(err).To(HaveOccurred(), "a cluster's certificate must not verify against another cluster's CA")

	admin := loadCert(g, rome, "admin")
	g.Expect(admin.Subject.Organization).To(ContainElement("system:masters"))
	_, err = admin.Verify(x509.VerifyOptions{Roots: romeCA, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}})
	g.Expect(err).NotTo(HaveOccurred())
	_, err = admin.Verify(x509.VerifyOptions{Roots: romeCA, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}})
	g.Expect(err).To(HaveOccurred(), "a client certificate must not serve")

	_, err = tls.LoadX509KeyPair(filepath.Join(rome, "admin.crt"), filepath.Join(rome, "admin.key"))
	g.Expect(err).NotTo(HaveOccurred())
}

func TestGeneratePKIKeepsExistingMaterial(t *testing.T) {
	g := NewWithT(t)
	dir := t.TempDir()
	g.Expect(GeneratePKI(dir, "rome", net.ParseIP("10.128.0.1"))).To(Succeed())
	before, _ := os.ReadFile(filepath.Join(dir, "admin.crt"))
	g.Expect(GeneratePKI(dir, "rome", net.ParseIP("10.128.0.1"))).To(Succeed())
	after, _ := os.ReadFile(filepath.Join(dir, "admin.crt"))
	g.Expect(after).To(Equal(before))
	ca, err := LoadCA(dir)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(ca.Cert.IsCA).To(BeTrue())
}

func loadPool(g Gomega, dir string) *x509.CertPool {
	data, err := os.ReadFile(filepath.Join(dir, "ca.crt"))
	g.Expect(err).NotTo(HaveOccurred())
	pool := x509.NewCertPool()
	g.Expect(pool.AppendCertsFromPEM(data)).To(BeTrue())
	return pool
}

func loadCert(g Gomega, dir, name string) *x509.Certificate {
	data, err := os.ReadFile(filepath.Join(dir, name+".crt"))
	g.Expect(err).NotTo(HaveOccurred())
	b, _ := pem.Decode(data)
	c, err := x509.ParseCertificate(b.Bytes)
	g.Expect(err).NotTo(HaveOccurred())
	return c
}
