//go:build e2e || bench

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

package network_test

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// The lab: two clusters, a and b, both with pod CIDR 10.244.0.0/16 and a pod
// at the same IP. Each cluster has a gateway namespace and a pod namespace
// joined by a veth; the gateways are joined by an underlay veth. Nothing in
// it is connected to the host's own network.
const (
	podCIDR     = "10.244.0.0/16"
	podIP       = "10.244.1.10"
	podGateway  = "10.244.1.1"
	underlayA   = "198.18.0.1"
	underlayB   = "198.18.0.2"
	tunnelA     = "169.254.100.1"
	tunnelB     = "169.254.100.2"
	bSeesA      = "10.71.0.0/16"  // given to b's gateway by flag
	aSeesB      = "10.208.0.0/16" // what a's gateway IPAM computes (first /16 of the default pool)
	metricsAddr = "127.0.0.1:9100"
	echoPort    = "7000"
)

// lab holds what a run created, so that cleanup removes exactly that.
type lab struct {
	id         string // suffix making names unique to this run
	dir        string
	bin        string
	log        io.Writer
	namespaces []string
	procs      map[string]*gatewayProc
	// gatewayEnv is added to the gateways' environment (the benchmark's
	// SPILLWAY_BENCH_GATEWAY_ENV, e.g. GOMAXPROCS=1); empty in the suite.
	gatewayEnv []string
}

func newLab(dir string, log io.Writer) *lab {
	return &lab{id: fmt.Sprint(os.Getpid() % 100000), dir: dir, log: log, procs: map[string]*gatewayProc{}}
}

func (l *lab) ns(name string) string { return "spw-" + l.id + "-" + name }

// iface names a gateway's WireGuard device: unique per run because its
// userspace UAPI socket lives in the host-wide /var/run/wireguard.
func (l *lab) iface(cluster string) string { return "spw" + cluster + l.id }

func run(args ...string) error {
	out, err := exec.Command(args[0], args[1:]...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s: %w: %s", strings.Join(args, " "), err, out)
	}
	return nil
}

// buildGateway compiles cmd/spillway-gateway into the lab directory.
func (l *lab) buildGateway() error {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return fmt.Errorf("finding the module root: %w", err)
	}
	root := filepath.Dir(strings.TrimSpace(string(out)))
	l.bin = filepath.Join(l.dir, "spillway-gateway")
	cmd := exec.Command("go", "build", "-o", l.bin, "./cmd/spillway-gateway")
	cmd.Dir, cmd.Env = root, append(os.Environ(), "GOFLAGS=-mod=mod")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build ./cmd/spillway-gateway: %w: %s", err, out)
	}
	return nil
}

// create builds the namespaces and links described above.
func (l *lab) create() error {
	return l.createPair([2]string{"a", "b"}, [2]string{underlayA, underlayB})
}

// createPair builds, for clusters c[0] and c[1], a gateway namespace
// gw<c> and a pod namespace pod<c> (the pod at podIP behind the gateway),
// and an underlay veth between the gateways at the given addresses.
func (l *lab) createPair(c [2]string, underlay [2]string) error {
	for _, n := range []string{"gw" + c[0], "gw" + c[1], "pod" + c[0], "pod" + c[1]} {
		if err := run("ip", "netns", "add", l.ns(n)); err != nil {
			return err
		}
		l.namespaces = append(l.namespaces, l.ns(n))
		if err := run("ip", "-n", l.ns(n), "link", "set", "lo", "up"); err != nil {
			return err
		}
	}
	if err := l.veth(l.ns("gw"+c[0]), "ul", underlay[0]+"/30", l.ns("gw"+c[1]), "ul", underlay[1]+"/30"); err != nil {
		return err
	}
	for _, name := range c {
		if err := l.veth(l.ns("gw"+name), "pod0", podGateway+"/24", l.ns("pod"+name), "eth0", podIP+"/24"); err != nil {
			return err
		}
		if err := run("ip", "-n", l.ns("pod"+name), "route", "add", "default", "via", podGateway); err != nil {
			return err
		}
	}
	return nil
}

// addSpoke adds cluster spoke to an existing pair: a gateway namespace
// linked to hub's gateway namespace (hub's end named hubIf), and a pod
// namespace behind it. Each spoke address is /30 with its hub address.
func (l *lab) addSpoke(hub, hubIf, spoke, hubAddr, spokeAddr string) error {
	for _, n := range []string{"gw" + spoke, "pod" + spoke} {
		if err := run("ip", "netns", "add", l.ns(n)); err != nil {
			return err
		}
		l.namespaces = append(l.namespaces, l.ns(n))
		if err := run("ip", "-n", l.ns(n), "link", "set", "lo", "up"); err != nil {
			return err
		}
	}
	if err := l.veth(l.ns("gw"+hub), hubIf, hubAddr+"/30", l.ns("gw"+spoke), "ul", spokeAddr+"/30"); err != nil {
		return err
	}
	if err := l.veth(l.ns("gw"+spoke), "pod0", podGateway+"/24", l.ns("pod"+spoke), "eth0", podIP+"/24"); err != nil {
		return err
	}
	return run("ip", "-n", l.ns("pod"+spoke), "route", "add", "default", "via", podGateway)
}

func (l *lab) veth(ns1, if1, addr1, ns2, if2, addr2 string) error {
	steps := [][]string{
		{"ip", "link", "add", if1, "netns", ns1, "type", "veth", "peer", "name", if2, "netns", ns2},
		{"ip", "-n", ns1, "addr", "add", addr1, "dev", if1},
		{"ip", "-n", ns2, "addr", "add", addr2, "dev", if2},
		{"ip", "-n", ns1, "link", "set", if1, "up"},
		{"ip", "-n", ns2, "link", "set", if2, "up"},
	}
	for _, s := range steps {
		if err := run(s...); err != nil {
			return err
		}
	}
	return nil
}

// destroy stops every gateway and deletes every namespace this lab made;
// links, routes and iptables rules go with their namespace.
func (l *lab) destroy() error {
	var errs []error
	for name, p := range l.procs {
		errs = append(errs, p.stop(syscall.SIGTERM, 5*time.Second))
		delete(l.procs, name)
	}
	for _, n := range l.namespaces {
		errs = append(errs, run("ip", "netns", "del", n))
	}
	l.namespaces = nil
	return errors.Join(errs...)
}

func (l *lab) publicKey(cluster string) (string, error) {
	out, err := exec.Command(l.bin, "--print-public-key", "--private-key-file", l.keyFile(cluster)).Output()
	return strings.TrimSpace(string(out)), err
}

func (l *lab) keyFile(cluster string) string { return filepath.Join(l.dir, cluster+".key") }
