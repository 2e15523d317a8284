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
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"time"
)

// probeMagic starts every probe datagram so stray UDP is never echoed.
var probeMagic = []byte("SPWPROBE")

// responder echoes probe datagrams arriving through the tunnel. It binds the
// tunnel address so that it answers only the peer, never the underlay.
type responder struct{ conn *net.UDPConn }

func listenResponder(addr netip.AddrPort) (*responder, error) {
	c, err := net.ListenUDP("udp", net.UDPAddrFromAddrPort(addr))
	if err != nil {
		return nil, fmt.Errorf("listening for latency probes on %s (--probe-port): %w", addr, err)
	}
	r := &responder{conn: c}
	go r.serve()
	return r, nil
}

func (r *responder) serve() {
	buf := make([]byte, 64)
	for {
		n, from, err := r.conn.ReadFromUDPAddrPort(buf)
		if err != nil {
			return // closed
		}
		if bytes.HasPrefix(buf[:n], probeMagic) {
			_, _ = r.conn.WriteToUDPAddrPort(buf[:n], from)
		}
	}
}

func (r *responder) Close() error { return r.conn.Close() }

// prober measures the round trip to the peer's responder through the tunnel.
// One probe is in flight at a time: the latency is that of the last answer.
type prober struct {
	conn *net.UDPConn
	seq  uint64
}

func dialProber(local netip.Addr, peer netip.AddrPort) (*prober, error) {
	c, err := net.DialUDP("udp", net.UDPAddrFromAddrPort(netip.AddrPortFrom(local, 0)), net.UDPAddrFromAddrPort(peer))
	if err != nil {
		return nil, fmt.Errorf("opening the latency probe to %s: %w", peer, err)
	}
	return &prober{conn: c}, nil
}

// ping sends one probe and waits up to timeout for its echo, skipping late
// echoes of earlier probes.
func (p *prober) ping(timeout time.Duration) (time.Duration, error) {
	p.seq++
	msg := binary.BigEndian.AppendUint64(append([]byte(nil), probeMagic...), p.seq)
	start := time.Now()
	if _, err := p.conn.Write(msg); err != nil {
		return 0, fmt.Errorf("sending a probe: %w", err)
	}
	if err := p.conn.SetReadDeadline(start.Add(timeout)); err != nil {
		return 0, err
	}
	buf := make([]byte, 64)
	for {
		n, err := p.conn.Read(buf)
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return 0, fmt.Errorf("no probe reply within %s", timeout)
		}
		if err != nil {
			// ECONNREFUSED from an earlier send: the peer has no responder yet
			return 0, fmt.Errorf("probe: %w", err)
		}
		if bytes.Equal(buf[:n], msg) {
			return time.Since(start), nil
		}
	}
}

func (p *prober) Close() error { return p.conn.Close() }
