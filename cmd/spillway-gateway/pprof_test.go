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

package main

import (
	"log/slog"
	"net"
	"net/netip"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
)

func TestPprofAddressIsLoopbackOnly(t *testing.T) {
	for addr, want := range map[string]string{
		"":                "",
		"0":               "",
		"127.0.0.1:6060":  "",
		"127.0.0.2:6060":  "",
		"[::1]:6060":      "",
		"localhost:6060":  "",
		"0.0.0.0:6060":    "not a loopback address",
		":6060":           "not a loopback address",
		"198.18.0.1:6060": "not a loopback address",
		"[::]:6060":       "not a loopback address",
		"gw.example:6060": "not a loopback address",
		"127.0.0.1":       "not host:port",
		"127.0.0.1:0":     "no valid port",
		"127.0.0.1:65536": "no valid port",
		"127.0.0.1:http":  "no valid port",
	} {
		err := checkPprofAddress(addr)
		if want == "" {
			if err != nil {
				t.Errorf("checkPprofAddress(%q): %v, want accepted", addr, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "--pprof-bind-address") ||
			!strings.Contains(err.Error(), "127.0.0.1:6060") {
			t.Errorf("checkPprofAddress(%q): %v, want an error naming the flag, %q and the fix", addr, err, want)
		}
	}
}

func TestParseRejectsANonLoopbackPprofAddress(t *testing.T) {
	g := NewWithT(t)
	_, err := validOptions(t, func(o *options) { o.pprofBindAddress = "0.0.0.0:6060" }).parse()
	g.Expect(err).To(MatchError(ContainSubstring("--pprof-bind-address")))
	_, err = validOptions(t).parse()
	g.Expect(err).NotTo(HaveOccurred(), "off by default")
}

func TestServePprofOnATakenPortNamesTheFlag(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	_, err = servePprof(l.Addr().String(), slog.New(slog.DiscardHandler))
	if err == nil || !strings.Contains(err.Error(), "--pprof-bind-address") {
		t.Fatalf("servePprof on a taken port: %v, want an error naming --pprof-bind-address", err)
	}
}

// FuzzPprofAddress checks that whatever an operator types, the check never
// panics and accepts nothing but off or a loopback host with a port.
func FuzzPprofAddress(f *testing.F) {
	for _, s := range []string{"", "0", "127.0.0.1:6060", "[::1]:1", "localhost:6060", "0.0.0.0:6060", ":6060", "[::ffff:127.0.0.1]:80", "[fe80::1%lo]:80"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, addr string) {
		if checkPprofAddress(addr) != nil || !pprofEnabled(addr) {
			return
		}
		host, _, err := net.SplitHostPort(addr)
		if err != nil {
			t.Fatalf("accepted %q, which is not host:port", addr)
		}
		if ip, err := netip.ParseAddr(host); host != "localhost" && (err != nil || !ip.IsLoopback()) {
			t.Fatalf("accepted %q, whose host is not loopback", addr)
		}
	})
}
