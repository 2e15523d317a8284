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
	"strings"
	"testing"

	"golang.zx2c4.com/wireguard/wgctrl/wgtypes"
)

func validData(t *testing.T) map[string]string {
	t.Helper()
	k, err := wgtypes.GeneratePrivateKey()
	if err != nil {
		t.Fatal(err)
	}
	return map[string]string{"clusterID": "milan", "publicKey": k.PublicKey().String(),
		"endpoint": "198.18.0.2:51820", "podCIDR": "10.244.0.0/16", "remappedPeerPodCIDR": "10.208.0.0/16"}
}

func TestParseParamsRoundTripsWhatDataWrites(t *testing.T) {
	p, err := ParseParams("cm", validData(t))
	if err != nil {
		t.Fatal(err)
	}
	again, err := ParseParams("cm", p.Data())
	if err != nil || again != p {
		t.Fatalf("ParseParams(Data()) = %+v, %v; want %+v", again, err, p)
	}
}

func TestParseParamsNamesEveryBadKey(t *testing.T) {
	for _, tc := range []struct{ key, value, want string }{
		{"publicKey", "c2hvcnQ=", `key "publicKey" decodes to 5 bytes`},
		{"publicKey", "", `key "publicKey" is empty`},
		{"podCIDR", "10.244.0.0/33", `key "podCIDR" is "10.244.0.0/33", not an IPv4 CIDR`},
		{"endpoint", "198.18.0.2", `key "endpoint" is "198.18.0.2", not host:port`},
		{"endpoint", "gw:99999", `port is not 1-65535`},
		{"clusterID", "", `key "clusterID" is empty`},
		{"remappedPeerPodCIDR", "nope", `key "remappedPeerPodCIDR" is "nope"`},
	} {
		d := validData(t)
		d[tc.key] = tc.value
		_, err := ParseParams("ConfigMap t/liqo-network-provider", d)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "ConfigMap t/liqo-network-provider") {
			t.Errorf("%s=%q: error %v; want it to name the ConfigMap and contain %q", tc.key, tc.value, err, tc.want)
		}
	}
}
