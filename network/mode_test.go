package network

import (
	"testing"

	. "github.com/onsi/gomega"
)

func TestModeReflectIP(t *testing.T) {
	DefaultRegistry.Set(Mapping{RemoteClusterID: "mode-test", Remote: pfx("10.244.0.0/16"), Local: pfx("10.70.0.0/16")})
	t.Cleanup(func() { DefaultRegistry.Delete("mode-test") })
	cases := []struct {
		name    string
		mode    Mode
		ip      string
		want    string
		wantOK  bool
		gateway bool
	}{
		{"internal remaps", DefaultMode, "10.244.1.10", "10.70.1.10", true, true},
		{"internal, no IP yet", DefaultMode, "", "", false, true},
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
