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
	"testing"

	. "github.com/onsi/gomega"
)

func TestModeReflectIP(t *testing.T) {
	reg := NewRegistry()
	reg.Set(Mapping{RemoteClusterID: "mode-test", Remote: pfx("10.244.0.0/16"), Local: pfx("10.70.0.0/16")})
	internal := Mode{Internal: true, ReflectIPs: true, Registry: reg}
	cases := []struct {
		name    string
		mode    Mode
		ip      string
		want    string
		wantOK  bool
		gateway bool
	}{
		{"internal remaps", internal, "10.244.1.10", "10.70.1.10", true, true},
		{"internal without a registry knows no remap", DefaultMode, "10.244.1.10", "10.244.1.10", true, true},
		{"internal, no IP yet", internal, "", "", false, true},
		{"external reflects as is", Mode{Internal: false, ReflectIPs: true}, "10.244.1.10", "10.244.1.10", true, false},
		{"reflectIPs=false reflects nothing", Mode{Internal: true, ReflectIPs: false}, "10.244.1.10", "", false, true},
		{"external and no IPs", Mode{}, "10.244.1.10", "", false, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			got, ok := tc.mode.ReflectIP("mode-test", tc.ip)
			g.Expect(ok).To(Equal(tc.wantOK))
			g.Expect(got).To(Equal(tc.want))
			g.Expect(tc.mode.NeedsGateway()).To(Equal(tc.gateway))
		})
	}
}

func TestModeString(t *testing.T) {
	NewWithT(t).Expect(Mode{Internal: false, ReflectIPs: true}.String()).To(Equal("networking.internal=false,reflectIPs=true"))
}
