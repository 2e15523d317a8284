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

// Package certs bootstraps and rotates the webhook server's TLS certificate,
// so that Spillway needs no cert-manager: a CA and a serving certificate kept
// in a Secret (shared by every replica, surviving restarts), written to the
// directory the webhook server watches, and the CA bundle handed to whoever
// publishes the webhook configurations.
package certs

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"slices"
	"time"
)

// Validity periods. A serving certificate is renewed after two thirds of its
// life, a CA one year before it ends; the old CA stays in the bundle until it
// expires, so callers holding the old bundle keep trusting the server.
const (
	CAValidity   = 10 * 365 * 24 * time.Hour
	LeafValidity = 365 * 24 * time.Hour
	caRenewAhead = 365 * 24 * time.Hour
)

// Keys of the Secret.
const (
	CACertKey  = "ca.crt"
	CAKeyKey   = "ca.key"
	BundleKey  = "bundle.crt"
	TLSCertKey = "tls.crt"
	TLSKeyKey  = "tls.key"
)

// Bundle is the certificate material, PEM encoded, as stored in the Secret.
type Bundle map[string][]byte

// Plan is what a rotation must do, and why.
type Plan struct {
	NewCA, NewLeaf bool
	Reason         string
}

// PlanRotation decides, from the stored bundle, whether a new CA or serving
// certificate is due: missing or unreadable material, a CA near its end, a
// serving certificate past two thirds of its life or not valid for hosts.
func PlanRotation(b Bundle, hosts []string, now time.Time) Plan {
	ca, caErr := parseCert(b[CACertKey])
	if caErr != nil || len(b[CAKeyKey]) == 0 {
		return Plan{NewCA: true, NewLeaf: true, Reason: "no usable CA yet"}
	}
	if now.After(ca.NotAfter.Add(-caRenewAhead)) {
		return Plan{NewCA: true, NewLeaf: true, Reason: fmt.Sprintf("the CA expires on %s", ca.NotAfter.Format(time.DateOnly))}
	}
	leaf, err := parseCert(b[TLSCertKey])
	switch {
	case err != nil || len(b[TLSKeyKey]) == 0:
		return Plan{NewLeaf: true, Reason: "no usable serving certificate yet"}
	case leaf.CheckSignatureFrom(ca) != nil:
		return Plan{NewLeaf: true, Reason: "the serving certificate is not signed by the current CA"}
	case now.After(leaf.NotBefore.Add(leaf.NotAfter.Sub(leaf.NotBefore) * 2 / 3)):
		return Plan{NewLeaf: true, Reason: fmt.Sprintf("the serving certificate expires on %s", leaf.NotAfter.Format(time.DateOnly))}
	case !coversHosts(leaf, hosts):
		return Plan{NewLeaf: true, Reason: "the serving certificate does not name every webhook host"}
	}
	return Plan{}
}

// Rotate returns b with what plan calls for renewed, and the bundle of CAs
// the API server must trust: the current CA, and an older one still valid.
func Rotate(b Bundle, plan Plan, hosts []string, now time.Time) (Bundle, error) {
	out := Bundle{}
	for k, v := range b {
		out[k] = v
	}
	if plan.NewCA {
		certPEM, keyPEM, err := newCA(now)
		if err != nil {
			return nil, err
		}
		out[CACertKey], out[CAKeyKey] = certPEM, keyPEM
	}
	if plan.NewLeaf {
		certPEM, keyPEM, err := newLeaf(out[CACertKey], out[CAKeyKey], hosts, now)
		if err != nil {
			return nil, err
		}
		out[TLSCertKey], out[TLSKeyKey] = certPEM, keyPEM
	}
	out[BundleKey] = trusted(b[BundleKey], out[CACertKey], now)
	return out, nil
}

// trusted is the current CA followed by the still-valid CAs of the old bundle.
func trusted(old, current []byte, now time.Time) []byte {
	out := append([]byte{}, current...)
	for rest := old; ; {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			return out
		}
		encoded := pem.EncodeToMemory(block)
		c, err := x509.ParseCertificate(block.Bytes)
		if err != nil || now.After(c.NotAfter) || bytes.Contains(out, encoded) {
			continue
		}
		out = append(out, encoded...)
	}
}

func newCA(now time.Time) (certPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	tmpl := &x509.Certificate{SerialNumber: serial(), Subject: pkix.Name{CommonName: "spillway-webhook-ca"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(CAValidity), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return nil, nil, fmt.Errorf("self-signing the webhook CA: %w", err)
	}
	return encode(der, key)
}

func newLeaf(caPEM, caKeyPEM []byte, hosts []string, now time.Time) (certPEM, keyPEM []byte, err error) {
	ca, err := parseCert(caPEM)
	if err != nil {
		return nil, nil, err
	}
	block, _ := pem.Decode(caKeyPEM)
	if block == nil {
		return nil, nil, errors.New("the webhook CA key is not PEM")
	}
	caKey, err := x509.ParseECPrivateKey(block.Bytes)
	if err != nil {
		return nil, nil, fmt.Errorf("reading the webhook CA key: %w", err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	tmpl := &x509.Certificate{SerialNumber: serial(), Subject: pkix.Name{CommonName: "spillway-webhook"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(LeafValidity),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, key.Public(), caKey)
	if err != nil {
		return nil, nil, fmt.Errorf("signing the webhook serving certificate: %w", err)
	}
	return encode(der, key)
}

func encode(der []byte, key *ecdsa.PrivateKey) (certPEM, keyPEM []byte, err error) {
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), nil
}

func parseCert(p []byte) (*x509.Certificate, error) {
	block, _ := pem.Decode(p)
	if block == nil {
		return nil, errors.New("no PEM certificate")
	}
	return x509.ParseCertificate(block.Bytes)
}

func coversHosts(c *x509.Certificate, hosts []string) bool {
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			if !slices.ContainsFunc(c.IPAddresses, ip.Equal) {
				return false
			}
		} else if !slices.Contains(c.DNSNames, h) {
			return false
		}
	}
	return true
}

func serial() *big.Int {
	n, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	return n
}
