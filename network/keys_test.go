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

package network

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"testing"

	. "github.com/onsi/gomega"
	"golang.zx2c4.com/wireguard/wgctrl/wgtypes"
)

func TestParsePublicKey(t *testing.T) {
	good, err := wgtypes.GeneratePrivateKey()
	NewWithT(t).Expect(err).NotTo(HaveOccurred())
	cases := []struct{ name, in, wantErr string }{
		{"valid", good.PublicKey().String(), ""},
		{"valid with newline", good.PublicKey().String() + "\n", ""},
		{"empty", " ", "--peer-public-key is empty: paste the output of `spillway-gateway --print-public-key`"},
		{"not base64", "not a key!", "--peer-public-key is not base64"},
		{"31 bytes", base64.StdEncoding.EncodeToString(make([]byte, 31)), "--peer-public-key decodes to 31 bytes, a WireGuard key has 32"},
		{"33 bytes", base64.StdEncoding.EncodeToString(make([]byte, 33)), "decodes to 33 bytes"},
		{"all zero", base64.StdEncoding.EncodeToString(make([]byte, 32)), "all-zero key"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			k, err := ParsePublicKey("--peer-public-key", tc.in)
			if tc.wantErr == "" {
				g.Expect(err).NotTo(HaveOccurred())
				g.Expect(k).To(Equal(good.PublicKey()))
				return
			}
			g.Expect(err).To(MatchError(ContainSubstring(tc.wantErr)))
		})
	}
}

func TestLoadOrCreatePrivateKeyKeepsTheKey(t *testing.T) {
	g := NewWithT(t)
	path := filepath.Join(t.TempDir(), "keys", "wg.key")
	first, created, err := LoadOrCreatePrivateKey(path)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(created).To(BeTrue())
	info, err := os.Stat(path)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(info.Mode().Perm()).To(Equal(os.FileMode(0o600)))

	again, created, err := LoadOrCreatePrivateKey(path)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(created).To(BeFalse())
	g.Expect(again.PublicKey()).To(Equal(first.PublicKey()))
}

func TestLoadOrCreatePrivateKeyRejectsGarbage(t *testing.T) {
	g := NewWithT(t)
	path := filepath.Join(t.TempDir(), "wg.key")
	g.Expect(os.WriteFile(path, []byte("garbage"), 0o600)).To(Succeed())
	_, _, err := LoadOrCreatePrivateKey(path)
	g.Expect(err).To(MatchError(And(ContainSubstring(path), ContainSubstring("delete it to have a new one generated"))))
	_, _, err = LoadOrCreatePrivateKey("")
	g.Expect(err).To(MatchError(ContainSubstring("--private-key-file is empty")))
}
