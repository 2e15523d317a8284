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

package gateway

import (
	"fmt"
	"log/slog"
	"net"

	"github.com/vishvananda/netlink"
	"golang.zx2c4.com/wireguard/conn"
	"golang.zx2c4.com/wireguard/device"
	"golang.zx2c4.com/wireguard/ipc"
	"golang.zx2c4.com/wireguard/tun"
)

// Implementation is the WireGuard datapath a gateway runs on.
type Implementation string

const (
	// ImplementationAuto picks the kernel module when it exists, else userspace.
	ImplementationAuto Implementation = "auto"
	// ImplementationKernel is the in-kernel WireGuard device.
	ImplementationKernel Implementation = "kernel"
	// ImplementationUserspace is wireguard-go embedded in the gateway, on a TUN
	// device, configured like the kernel one through its UAPI socket.
	ImplementationUserspace Implementation = "userspace"
)

// ParseImplementation checks a --wireguard-implementation value.
func ParseImplementation(s string) (Implementation, error) {
	switch i := Implementation(s); i {
	case ImplementationAuto, ImplementationKernel, ImplementationUserspace:
		return i, nil
	}
	return "", fmt.Errorf("--wireguard-implementation %q is not one of auto, kernel, userspace", s)
}

// wgDevice is a WireGuard interface that wgctrl can configure by name.
type wgDevice struct {
	name           string
	implementation Implementation
	// fallbackReason says why auto did not get a kernel device.
	fallbackReason string
	close          func() error
}

// openDevice creates the WireGuard interface name, replacing any stale link a
// killed gateway left behind so that a restart starts from a known state.
func openDevice(name string, want Implementation, mtu int, log *slog.Logger) (*wgDevice, error) {
	if old, err := netlink.LinkByName(name); err == nil {
		log.Info("removing a stale link left by a previous gateway", "interface", name, "type", old.Type())
		if err := netlink.LinkDel(old); err != nil {
			return nil, fmt.Errorf("removing stale link %s: %w", name, err)
		}
	}
	var kernelErr error
	if want != ImplementationUserspace {
		dev, err := openKernel(name, mtu)
		if err == nil || want == ImplementationKernel {
			return dev, err
		}
		kernelErr = err
	}
	dev, err := openUserspace(name, mtu, log)
	if err != nil {
		return nil, err
	}
	if kernelErr != nil {
		dev.fallbackReason = fmt.Sprintf("no kernel WireGuard (%v)", kernelErr)
		log.Info("using the userspace WireGuard device", "interface", name, "reason", dev.fallbackReason)
	}
	return dev, nil
}

func openKernel(name string, mtu int) (*wgDevice, error) {
	link := &netlink.Wireguard{LinkAttrs: netlink.LinkAttrs{Name: name, MTU: mtu}}
	if err := netlink.LinkAdd(link); err != nil {
		return nil, fmt.Errorf("creating kernel WireGuard link %s: %w", name, err)
	}
	return &wgDevice{name: name, implementation: ImplementationKernel, close: func() error {
		return netlink.LinkDel(link)
	}}, nil
}

// openUserspace runs wireguard-go on a TUN device and serves its UAPI socket
// (/var/run/wireguard/NAME.sock), which is where wgctrl looks for userspace
// devices: the rest of the gateway need not know which implementation it got.
func openUserspace(name string, mtu int, log *slog.Logger) (*wgDevice, error) {
	tdev, err := tun.CreateTUN(name, mtu)
	if err != nil {
		return nil, fmt.Errorf("creating TUN device %s for userspace WireGuard (needs /dev/net/tun and CAP_NET_ADMIN): %w", name, err)
	}
	wlog := &device.Logger{
		Verbosef: func(string, ...any) {},
		Errorf:   func(f string, a ...any) { log.Debug(fmt.Sprintf(f, a...), "interface", name) },
	}
	dev := device.NewDevice(tdev, conn.NewDefaultBind(), wlog)
	uapiFile, err := ipc.UAPIOpen(name)
	if err != nil {
		dev.Close()
		return nil, fmt.Errorf("opening the UAPI socket of %s: %w", name, err)
	}
	uapi, err := ipc.UAPIListen(name, uapiFile)
	if err != nil {
		uapiFile.Close()
		dev.Close()
		return nil, fmt.Errorf("listening on the UAPI socket of %s: %w", name, err)
	}
	go serveUAPI(uapi, dev)
	return &wgDevice{name: name, implementation: ImplementationUserspace, close: func() error {
		err := uapi.Close()
		dev.Close()
		return err
	}}, nil
}

func serveUAPI(l net.Listener, dev *device.Device) {
	for {
		c, err := l.Accept()
		if err != nil { // closed by wgDevice.close
			return
		}
		go dev.IpcHandle(c)
	}
}
