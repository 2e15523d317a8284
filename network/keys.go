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
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.zx2c4.com/wireguard/wgctrl/wgtypes"
)

const keyFix = "paste the output of `spillway-gateway --print-public-key` run on the peer gateway"

// ParsePublicKey checks a WireGuard public key given in field (a flag or API
// field) and says how to fix a bad one. Only public keys cross clusters or
// live in git; private keys stay in the gateway's key file.
func ParsePublicKey(field, s string) (wgtypes.Key, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return wgtypes.Key{}, fmt.Errorf("%s is empty: %s", field, keyFix)
	}
	raw, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return wgtypes.Key{}, fmt.Errorf("%s is not base64 (%w): %s", field, err, keyFix)
	}
	if len(raw) != wgtypes.KeyLen {
		return wgtypes.Key{}, fmt.Errorf("%s decodes to %d bytes, a WireGuard key has %d: %s", field, len(raw), wgtypes.KeyLen, keyFix)
	}
	k, _ := wgtypes.NewKey(raw)
	if k == (wgtypes.Key{}) {
		return wgtypes.Key{}, fmt.Errorf("%s is the all-zero key: %s", field, keyFix)
	}
	return k, nil
}

// LoadOrCreatePrivateKey reads the private key stored at path, generating it
// on first use (file mode 0600) so that a restarted gateway keeps its public
// key and its peer needs no new configuration. created reports a new key.
func LoadOrCreatePrivateKey(path string) (key wgtypes.Key, created bool, err error) {
	if path == "" {
		return wgtypes.Key{}, false, errors.New("--private-key-file is empty: give a file (or a mounted Secret key) where the gateway keeps its private key")
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return createPrivateKey(path)
	}
	if err != nil {
		return wgtypes.Key{}, false, fmt.Errorf("reading --private-key-file %s: %w", path, err)
	}
	key, err = wgtypes.ParseKey(strings.TrimSpace(string(data)))
	if err != nil {
		return wgtypes.Key{}, false, fmt.Errorf("--private-key-file %s does not hold a base64 WireGuard key: delete it to have a new one generated (the peer then needs the new public key)", path)
	}
	return key, false, nil
}

func createPrivateKey(path string) (wgtypes.Key, bool, error) {
	key, err := wgtypes.GeneratePrivateKey()
	if err != nil {
		return wgtypes.Key{}, false, fmt.Errorf("generating a WireGuard private key: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return wgtypes.Key{}, false, fmt.Errorf("creating the directory of --private-key-file %s: %w", path, err)
	}
	// O_EXCL: two gateways racing on one file must not each keep a different key.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return LoadOrCreatePrivateKey(path)
	}
	if err != nil {
		return wgtypes.Key{}, false, fmt.Errorf("creating --private-key-file %s: %w", path, err)
	}
	_, werr := f.WriteString(key.String() + "\n")
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		os.Remove(path)
		return wgtypes.Key{}, false, fmt.Errorf("writing --private-key-file %s: %w", path, werr)
	}
	return key, true, nil
}
